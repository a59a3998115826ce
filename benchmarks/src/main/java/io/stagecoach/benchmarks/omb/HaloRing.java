package io.stagecoach.benchmarks.omb;

import java.util.Locale;

import io.stagecoach.device.DeviceContext;
import io.stagecoach.device.DeviceRuntime;
import io.stagecoach.protocol.datatype.Datatype;
import io.stagecoach.rank.Communicator;
import io.stagecoach.rank.Request;
import io.stagecoach.rank.Stagecoach;
import io.stagecoach.rank.StagecoachContext;
import org.agrona.CloseHelper;

/**
 * Halo exchanges of N ranks on a ring, at full speed: in each iteration every rank receives a face from both
 * neighbours and sends one to each, all four non-blocking, and waits for them. Rank 0 reports the iterations per
 * second it saw and the bytes per second it received, for loading a job of many ranks (e.g. to measure what a
 * dashboard costs it).
 * <pre>
 * stagecoach run -n 8 --oversubscribe io.stagecoach.benchmarks.omb.HaloRing [H|D] [--face-bytes 1048576]
 *     [--iterations 200] [--skip 20]
 * </pre>
 */
public final class HaloRing
{
    private static final int TAG_FROM_LEFT = 11;
    private static final int TAG_FROM_RIGHT = 12;

    private HaloRing()
    {
    }

    /**
     * @param args see the class comment.
     */
    public static void main(final String[] args)
    {
        MemoryLocation location = MemoryLocation.DEVICE;
        long faceBytes = 1024 * 1024;
        long iterations = 200;
        long skip = 20;
        for (int i = 0; i < args.length; i++)
        {
            switch (args[i])
            {
                case "--face-bytes" -> faceBytes = Long.parseLong(args[++i]);
                case "--iterations" -> iterations = Long.parseLong(args[++i]);
                case "--skip" -> skip = Long.parseLong(args[++i]);
                default -> location = MemoryLocation.parse(args[i]);
            }
        }
        final StagecoachContext context = new StagecoachContext();
        final DeviceRuntime device = location == MemoryLocation.DEVICE ? DeviceRuntime.open(
            new DeviceContext().localRank(context.launchEnvironment().localRank())) : null;
        try (Communicator comm = Stagecoach.init(context.deviceRuntime(device));
            RankBuffer faces = RankBuffer.allocate(location, 4 * faceBytes, device, comm))
        {
            run(comm, faces, faceBytes, iterations, skip);
        }
        finally
        {
            CloseHelper.quietClose(device);
        }
    }

    private static void run(
        final Communicator comm, final RankBuffer faces, final long faceBytes, final long iterations, final long skip)
    {
        final int left = (comm.rank() + comm.size() - 1) % comm.size();
        final int right = (comm.rank() + 1) % comm.size();
        final BufferRegion toLeft = faces.region(0);
        final BufferRegion toRight = faces.region(faceBytes);
        final BufferRegion fromLeft = faces.region(2 * faceBytes);
        final BufferRegion fromRight = faces.region(3 * faceBytes);
        final Request[] requests = new Request[4];
        long startNs = System.nanoTime();
        for (long i = 0; i < iterations + skip; i++)
        {
            if (i == skip)
            {
                startNs = System.nanoTime();
            }
            requests[0] = fromLeft.irecv(comm, faceBytes, Datatype.BYTE, left, TAG_FROM_LEFT);
            requests[1] = fromRight.irecv(comm, faceBytes, Datatype.BYTE, right, TAG_FROM_RIGHT);
            requests[2] = toRight.isend(comm, faceBytes, Datatype.BYTE, right, TAG_FROM_LEFT);
            requests[3] = toLeft.isend(comm, faceBytes, Datatype.BYTE, left, TAG_FROM_RIGHT);
            Windows.awaitAll(requests);
        }
        final double seconds = (System.nanoTime() - startNs) / 1e9;
        if (comm.rank() == 0)
        {
            System.out.printf(Locale.ROOT, "halo-ring: %d ranks, face %d B, %d iterations in %.3f s: %.1f " +
                "iterations/s, rank 0 received %.1f MB/s%n", comm.size(), faceBytes, iterations, seconds,
                iterations / seconds, 2.0 * faceBytes * iterations / 1e6 / seconds);
        }
    }
}
