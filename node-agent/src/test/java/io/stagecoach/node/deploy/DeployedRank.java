package io.stagecoach.node.deploy;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.stagecoach.protocol.datatype.Datatype;
import io.stagecoach.rank.Communicator;
import io.stagecoach.rank.Request;
import io.stagecoach.rank.Stagecoach;

/**
 * The rank of the deployment test's job, one class that uses only the jars of the bundle: every rank sends every
 * other one a message of host memory whose size and bytes depend on the pair (over 64 KiB, so that it takes more than
 * one frame), receives theirs and checks each byte. Prints {@code RANK r node N pairs=P wrong=W} and exits 1 where
 * anything was wrong.
 */
public final class DeployedRank
{
    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static final int TAG = 7;

    private DeployedRank()
    {
    }

    public static void main(final String[] args)
    {
        try (Communicator world = Stagecoach.init())
        {
            final int rank = world.rank();
            final List<Request> requests = new ArrayList<>();
            final List<ByteBuffer> received = new ArrayList<>();
            for (int peer = 0; peer < world.size(); peer++)
            {
                final ByteBuffer into = ByteBuffer.allocateDirect(sizeOf(peer, rank));
                received.add(into);
                if (peer != rank)
                {
                    requests.add(world.irecv(into, into.capacity(), Datatype.BYTE, peer, TAG));
                }
            }
            for (int peer = 0; peer < world.size(); peer++)
            {
                if (peer != rank)
                {
                    final ByteBuffer from = content(rank, peer);
                    requests.add(world.isend(from, from.capacity(), Datatype.BYTE, peer, TAG));
                }
            }
            requests.forEach(request -> request.await(TIMEOUT));
            int wrong = 0;
            for (int peer = 0; peer < world.size(); peer++)
            {
                if (peer != rank && !received.get(peer).equals(content(peer, rank)))
                {
                    wrong++;
                }
            }
            System.out.println("RANK " + rank + " node " + System.getenv("STAGECOACH_NODE") + " pairs=" +
                (world.size() - 1) + " wrong=" + wrong);
            System.out.flush();
            if (wrong != 0)
            {
                System.exit(1);
            }
        }
    }

    private static int sizeOf(final int source, final int destination)
    {
        return 65_536 + 1_000 * source + destination;
    }

    private static ByteBuffer content(final int source, final int destination)
    {
        final ByteBuffer bytes = ByteBuffer.allocateDirect(sizeOf(source, destination));
        for (int i = 0; i < bytes.capacity(); i++)
        {
            bytes.put(i, (byte)(i * 31 + source * 7 + destination));
        }
        return bytes;
    }
}
