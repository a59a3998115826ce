package io.stagecoach.rank;

/**
 * Entry point of the Stagecoach runtime: {@link #init()} joins this process to its job as one rank and returns the
 * world {@link Communicator} (MPI_Init, MPI_COMM_WORLD); {@link Communicator#close()} leaves it (MPI_Finalize).
 * <pre>{@code
 * try (Communicator world = Stagecoach.init())
 * {
 *     Datatype face = Datatype.vector(126, 1, 128, Datatype.FLOAT).commit();
 *     Request in = world.irecv(haloIn, 1, face, left, 7);
 *     Request out = world.isend(haloOut, 1, face, right, 7);
 *     Request.waitAll(Duration.ofSeconds(10), in, out);
 * }
 * }</pre>
 * The JVM needs {@code --add-opens java.base/jdk.internal.misc=ALL-UNNAMED} (Agrona) and
 * {@code --add-opens java.base/sun.nio.ch=ALL-UNNAMED} (the Aeron driver).
 */
public final class Stagecoach
{
    private Stagecoach()
    {
    }

    /**
     * Joins the job described by system properties, the environment and the launcher.
     *
     * @return the world communicator, once every rank is connected.
     * @throws StagecoachException when the ranks do not all connect within the connect timeout.
     */
    public static Communicator init()
    {
        return init(new StagecoachContext());
    }

    /**
     * Joins the job described by a context.
     *
     * @param context the configuration; concluded here.
     * @return the world communicator, once every rank is connected.
     * @throws StagecoachException      when the ranks do not all connect within the connect timeout.
     * @throws IllegalArgumentException when the context is inconsistent.
     */
    public static Communicator init(final StagecoachContext context)
    {
        return RankRuntime.start(context);
    }
}
