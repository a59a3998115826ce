package io.stagecoach.benchmarks.omb;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.stagecoach.rank.MessagingBehavior;
import org.apache.pekko.actor.typed.ActorSystem;

/**
 * OMB's latency test through the actor API, beside the communicator's in the same run: for each size the ping-pong
 * of {@link Latency} (blocking send and receive on the main thread), then the same ping-pong between two actors that
 * ask their rank's {@link MessagingBehavior} for each send and receive ({@link PingPongBehavior}); reported as the
 * average one-way time of each in microseconds and what the actor path adds.
 * <pre>
 * stagecoach run -n 2 actor-latency [H|D H|D] [--min-size 1] [--max-size 8192] [--iterations N] [--skip N]
 *                              [--warm-up ROUND_TRIPS] [--percentiles]
 * </pre>
 * Sizes go to 8 KiB unless {@code --max-size} says otherwise: the small messages, whose time the actor path's hops
 * dominate. Each rank's actors run in an actor system of its own. With {@value #SPIN_MIN_CORES} cores or more they
 * run on one thread that spins while idle (Pekko's affinity pool at idle-cpu-level 10), the dispatcher for the
 * lowest latency; with fewer, where that thread and the progress threads would take turns on the cores, on Pekko's
 * default dispatcher. The system property {@code stagecoach.benchmark.dispatcher=affinity|fork-join} chooses.
 */
public final class ActorLatency
{
    static final String PROGRAM = "actor-latency";
    static final long DEFAULT_MAX_SIZE_BYTES = 8192;
    /** Cores from which the actors get a thread that spins: two ranks' spinning dispatcher and progress threads. */
    static final int SPIN_MIN_CORES = 8;
    private static final String DISPATCHER = System.getProperty("stagecoach.benchmark.dispatcher",
        Runtime.getRuntime().availableProcessors() >= SPIN_MIN_CORES ? "affinity" : "fork-join");

    private final BenchmarkRank rank;
    private final BenchmarkOptions options;
    private final OmbReport report;
    private final Latency communicator;
    private final ActorSystem<PingPongBehavior.Command> actors;

    private ActorLatency(
        final BenchmarkRank rank, final BenchmarkOptions options, final ActorSystem<PingPongBehavior.Command> actors)
    {
        this.rank = rank;
        this.options = options;
        this.report = new OmbReport(PROGRAM, rank.isRoot());
        this.communicator = new Latency(rank, options);
        this.actors = actors;
    }

    /**
     * Entry point of each rank; rank 0 prints the table.
     *
     * @param args see the class comment.
     */
    public static void main(final String[] args)
    {
        final BenchmarkOptions options = BenchmarkOptions.parse(PROGRAM, args, DEFAULT_MAX_SIZE_BYTES);
        try (BenchmarkRank rank = BenchmarkRank.start(PROGRAM, options))
        {
            final ActorSystem<PingPongBehavior.Command> actors = ActorSystem.create(
                PingPongBehavior.create(rank.comm()), "actor-latency-" + rank.rank(), config());
            try
            {
                new ActorLatency(rank, options, actors).run();
            }
            finally
            {
                actors.terminate();
                awaitTerminated(actors);
            }
        }
    }

    private void run()
    {
        report.title("Actor Latency Test", options, rank.deviceDescription());
        report.comment(JitWarmUp.describe(options.warmUpRoundTrips(), JitWarmUp.MESSAGE_ROUND) +
            ", for each path");
        report.comment("Communicator: blocking send and receive on the main thread; Actor: MessagingBehavior " +
            "requests and replies between actors on the " + DISPATCHER + " dispatcher; Added: Actor - Communicator");
        if (options.percentiles())
        {
            report.columns("Communicator(us)", "Actor(us)", "Added(us)", "Comm P50(us)", "Actor P50(us)",
                "Comm P99(us)", "Actor P99(us)");
        }
        else
        {
            report.columns("Communicator(us)", "Actor(us)", "Added(us)");
        }
        final long length = Math.max(options.maxSizeBytes(), JitWarmUp.LARGE_BYTES);
        try (RankBuffer sendBuffer = rank.allocate(length); RankBuffer receiveBuffer = rank.allocate(length))
        {
            JitWarmUp.run(rank, options.warmUpRoundTrips(), JitWarmUp.messageRound(1, (bytes, iterations) ->
            {
                communicator.measure(bytes, iterations, 0, sendBuffer, receiveBuffer);
                measure(bytes, iterations, 0, sendBuffer, receiveBuffer);
            }));
            for (long size = options.minSizeBytes(); size <= options.maxSizeBytes(); size <<= 1)
            {
                report.progress(size + " bytes");
                final long iterations = options.iterations(size, Latency.LARGE_MESSAGE_BYTES, 10_000, 1_000);
                final long skip = options.skip(size, Latency.LARGE_MESSAGE_BYTES, 100, 10);
                final double[] direct = communicator.measure(size, iterations, skip, sendBuffer, receiveBuffer);
                final double[] actor = measure(size, iterations, skip, sendBuffer, receiveBuffer);
                report.row(size, row(direct, actor));
            }
        }
    }

    /**
     * The actors' timed loop: the ping-pong actor runs it while this thread waits for its time.
     */
    private double[] measure(
        final long size, final long iterations, final long skip, final RankBuffer sendBuffer,
        final RankBuffer receiveBuffer)
    {
        final RoundTrips roundTrips = RoundTrips.of(iterations, options.percentiles());
        sendBuffer.write(0, Pattern.of(size, rank.rank()));
        receiveBuffer.write(0, Pattern.zeros(size));
        final CompletableFuture<Long> elapsedNs = new CompletableFuture<>();
        rank.barrier();
        actors.tell(new PingPongBehavior.Run(size, iterations, skip, sendBuffer.region(0), receiveBuffer.region(0),
            roundTrips, elapsedNs));
        final long timeNs = await(elapsedNs, size);
        Pattern.check(receiveBuffer, size, rank.peer(), PROGRAM + " size " + size);
        return roundTrips.oneWayUs(timeNs, iterations);
    }

    private static double[] row(final double[] direct, final double[] actor)
    {
        if (direct.length == 1)
        {
            return new double[]{ direct[0], actor[0], actor[0] - direct[0] };
        }
        return new double[]{ direct[0], actor[0], actor[0] - direct[0], direct[1], actor[1], direct[2], actor[2] };
    }

    private static long await(final CompletableFuture<Long> elapsedNs, final long size)
    {
        final long timeoutSeconds = BufferRegion.TIMEOUT.toSeconds();
        try
        {
            return elapsedNs.get(timeoutSeconds, TimeUnit.SECONDS);
        }
        catch (final TimeoutException ex)
        {
            throw new IllegalStateException(PROGRAM + ": the actors' ping-pong of " + size + " bytes did not end " +
                "within " + timeoutSeconds + " s", ex);
        }
        catch (final ExecutionException ex)
        {
            throw new IllegalStateException(PROGRAM + ": the actors' ping-pong of " + size + " bytes failed: " +
                ex.getCause().getMessage(), ex.getCause());
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(PROGRAM + " was interrupted", ex);
        }
    }

    /**
     * The actor system of the benchmark's actors: daemon threads, warnings only, and the dispatcher chosen.
     */
    static Config config()
    {
        final String dispatcher = switch (DISPATCHER)
        {
            case "affinity" -> String.join("\n",
                "pekko.actor.default-dispatcher.executor = affinity-pool-executor",
                "pekko.actor.default-dispatcher.affinity-pool-executor.parallelism-min = 1",
                "pekko.actor.default-dispatcher.affinity-pool-executor.parallelism-max = 1",
                "pekko.actor.default-dispatcher.affinity-pool-executor.idle-cpu-level = 10");
            case "fork-join" -> "";
            default -> throw new IllegalArgumentException(PROGRAM + ": stagecoach.benchmark.dispatcher '" +
                DISPATCHER + "' is neither affinity nor fork-join");
        };
        return ConfigFactory.parseString(String.join("\n",
            "pekko.daemonic = on",
            "pekko.jvm-shutdown-hooks = off",
            "pekko.coordinated-shutdown.run-by-jvm-shutdown-hook = off",
            "pekko.loglevel = WARNING",
            "pekko.stdout-loglevel = WARNING",
            "pekko.log-dead-letters-during-shutdown = off",
            dispatcher)).withFallback(ConfigFactory.load());
    }

    private static void awaitTerminated(final ActorSystem<?> system)
    {
        try
        {
            system.getWhenTerminated().toCompletableFuture().get(5, TimeUnit.SECONDS);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
        catch (final ExecutionException | TimeoutException ex)
        {
            System.err.println(PROGRAM + ": actor system " + system.name() + " did not terminate within 5 s: " + ex);
        }
    }
}
