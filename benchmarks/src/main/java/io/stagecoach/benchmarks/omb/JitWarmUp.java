package io.stagecoach.benchmarks.omb;

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

    private JitWarmUp()
    {
    }

    static String describe(final long roundTrips)
    {
        return "JIT warm-up before timing: " + roundTrips + " round trips of " + SMALL_BYTES + " B and " +
            roundTrips / 100 + " of " + LARGE_BYTES + " B, untimed";
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
