package io.stagecoach.benchmarks.omb;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;

import io.stagecoach.protocol.datatype.Datatype;
import io.stagecoach.rank.Communicator;

/**
 * Untimed ping-pong before the first measurement, so that the timed loops run compiled code: OMB's warm-up
 * iterations (100 or 10 per size) are sized for C and leave a JVM in its interpreter for most of the first sizes.
 * Round trips of 8 bytes (eager path) and one in a hundred of 64 KiB (rendezvous path), in the rank's own buffer
 * location, so that the device staging path warms up as well.
 */
final class JitWarmUp
{
    static final long SMALL_BYTES = 8;
    static final long LARGE_BYTES = 64 * 1024;
    private static final int TAG = 31_000;
    private static final long QUIET_ROUND_TRIPS = 2_000;
    private static final long MAX_QUIET_WAIT_NS = 20_000_000_000L;

    private JitWarmUp()
    {
    }

    static String describe(final long roundTrips)
    {
        return "JIT warm-up before timing: " + roundTrips + " round trips of " + SMALL_BYTES + " B and " +
            roundTrips / 100 + " of " + LARGE_BYTES + " B, then rounds of " + QUIET_ROUND_TRIPS + " and " +
            QUIET_ROUND_TRIPS / 100 + " until no rank's JIT compiled during a round (at most " +
            MAX_QUIET_WAIT_NS / 1_000_000_000L + " s), untimed";
    }

    static void run(final BenchmarkRank rank, final long roundTrips)
    {
        if (roundTrips == 0)
        {
            return;
        }
        try (RankBuffer out = rank.allocate(LARGE_BYTES); RankBuffer in = rank.allocate(LARGE_BYTES))
        {
            pingPong(rank, out.region(0), in.region(0), SMALL_BYTES, roundTrips);
            pingPong(rank, out.region(0), in.region(0), LARGE_BYTES, roundTrips / 100);
            untilCompilerQuiet(rank, out, in);
        }
    }

    /**
     * More rounds of the same until no rank's JIT compiler worked during a round (or {@link #MAX_QUIET_WAIT_NS}
     * passed): on a machine with two cores a compiler thread still busy takes the core of one of the two ranks, and
     * every round trip then waits for a time slice.
     */
    private static void untilCompilerQuiet(final BenchmarkRank rank, final RankBuffer out, final RankBuffer in)
    {
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
            pingPong(rank, out.region(0), in.region(0), SMALL_BYTES, QUIET_ROUND_TRIPS);
            pingPong(rank, out.region(0), in.region(0), LARGE_BYTES, QUIET_ROUND_TRIPS / 100);
            final boolean busy = compiler.getTotalCompilationTime() != before;
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

    private static void pingPong(
        final BenchmarkRank rank, final BufferRegion out, final BufferRegion in, final long bytes, final long times)
    {
        final Communicator comm = rank.comm();
        final int peer = rank.peer();
        for (long i = 0; i < times; i++)
        {
            if (rank.isRoot())
            {
                out.send(comm, bytes, Datatype.BYTE, peer, TAG);
                in.recv(comm, bytes, Datatype.BYTE, peer, TAG);
            }
            else
            {
                in.recv(comm, bytes, Datatype.BYTE, peer, TAG);
                out.send(comm, bytes, Datatype.BYTE, peer, TAG);
            }
        }
    }
}
