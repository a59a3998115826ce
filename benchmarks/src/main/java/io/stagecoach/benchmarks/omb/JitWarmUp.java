package io.stagecoach.benchmarks.omb;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;

import io.stagecoach.protocol.datatype.Datatype;

/**
 * Untimed runs of a program's own timed loop before its first measurement, so that the timed loops run compiled
 * code and no compiler thread works while they do: OMB's warm-up iterations (100 or 10 per size) are sized for C and
 * leave a JVM in its interpreter for most of the first sizes, and a loop that only its timed run makes hot is
 * compiled on the stack (OSR) while it is being timed. On a machine with two cores that compilation takes the core
 * of one of the two ranks for up to seconds, and every round trip then waits for a time slice.
 */
final class JitWarmUp
{
    /** Bytes of the small messages of a warm-up round (eager path). */
    static final long SMALL_BYTES = 8;
    /** Bytes of the large messages of a warm-up round (rendezvous path). */
    static final long LARGE_BYTES = 64 * 1024;
    private static final int TAG = 31_000;
    private static final long QUIET_ROUND_TRIPS = 2_000;
    private static final long MAX_QUIET_WAIT_NS = 20_000_000_000L;

    /**
     * A program's timed loop, run untimed.
     */
    @FunctionalInterface
    interface Round
    {
        /**
         * @param roundTrips how much to do, in round trips of {@link #SMALL_BYTES}; a program sends about one
         *                   {@link #LARGE_BYTES} message for every hundred of them, or the equivalent work.
         */
        void run(long roundTrips);
    }

    /**
     * A message program's timed loop at one size.
     */
    @FunctionalInterface
    interface Loop
    {
        /**
         * @param bytes      message size.
         * @param iterations iterations of the loop (round trips, or windows of {@code window} messages).
         */
        void run(long bytes, long iterations);
    }

    private JitWarmUp()
    {
    }

    /**
     * The round of a message program ({@link #MESSAGE_ROUND}): its loop at {@link #SMALL_BYTES} for the round trips,
     * then at {@link #LARGE_BYTES} for a hundredth of them, each in iterations of {@code window} messages.
     *
     * @param window messages per iteration: 1 for a ping-pong, the window for the bandwidth programs.
     * @param loop   the timed loop.
     * @return the round.
     */
    static Round messageRound(final int window, final Loop loop)
    {
        return roundTrips ->
        {
            loop.run(SMALL_BYTES, Math.max(1, roundTrips / window));
            loop.run(LARGE_BYTES, Math.max(1, roundTrips / 100 / window));
        };
    }

    /** What a round of the message programs does, for {@link #describe}. */
    static final String MESSAGE_ROUND = "in " + SMALL_BYTES + " B messages, and a hundredth as many of " + LARGE_BYTES +
        " B";
    /** What a round of the halo program does, for {@link #describe}. */
    static final String HALO_ROUND = "a quarter of them with each face of the smallest grid";

    static String describe(final long roundTrips, final String round)
    {
        return "JIT warm-up before timing: the timed loop run for " + roundTrips + " round trips (" + round +
            "), then for " + QUIET_ROUND_TRIPS + " at a time until no rank's JIT compiler worked during one (at most " +
            MAX_QUIET_WAIT_NS / 1_000_000_000L + " s), untimed";
    }

    /**
     * Runs the program's loop for {@code roundTrips}, then in rounds until no rank's compiler worked during one (or
     * {@link #MAX_QUIET_WAIT_NS} passed). Worked means a compilation ended (the compilation MXBean) or a compiler
     * thread used CPU time (one still running, which the MXBean does not show until it ends).
     */
    static void run(final BenchmarkRank rank, final long roundTrips, final Round round)
    {
        if (roundTrips == 0)
        {
            return;
        }
        round.run(roundTrips);
        final CompilationMXBean compiler = ManagementFactory.getCompilationMXBean();
        if (compiler == null || !compiler.isCompilationTimeMonitoringSupported())
        {
            return;
        }
        final long startNs = System.nanoTime();
        final ByteBuffer mine = ByteBuffer.allocateDirect(Long.BYTES);
        final ByteBuffer theirs = ByteBuffer.allocateDirect(Long.BYTES);
        while (true)
        {
            final long before = compiler.getTotalCompilationTime();
            final long ticksBefore = CompilerThreads.cpuTicks();
            round.run(QUIET_ROUND_TRIPS);
            final boolean busy = compiler.getTotalCompilationTime() != before ||
                CompilerThreads.cpuTicks() != ticksBefore;
            mine.putLong(0, busy ? 1 : 0);
            rank.comm().sendrecv(mine, 1, Datatype.LONG, rank.peer(), TAG + 1, theirs, 1, Datatype.LONG, rank.peer(),
                TAG + 1);
            final boolean anyBusy = busy || theirs.getLong(0) != 0;
            mine.putLong(0, anyBusy && System.nanoTime() - startNs < MAX_QUIET_WAIT_NS ? 1 : 0);
            rank.comm().sendrecv(mine, 1, Datatype.LONG, rank.peer(), TAG + 2, theirs, 1, Datatype.LONG, rank.peer(),
                TAG + 2);
            if (mine.getLong(0) == 0 && theirs.getLong(0) == 0)
            {
                return;
            }
        }
    }
}
