package io.stagecoach.rank;

import java.nio.ByteBuffer;
import java.time.Duration;

import io.stagecoach.protocol.datatype.Datatype;

/**
 * A rank process for {@link RankProcessSystemTest}: joins the job its environment describes, passes a token
 * around the ring, then the last rank waits to be killed while the others wait on it and report how their requests
 * failed. Lines on standard output tell the test where it is.
 */
public final class RankProcessMain
{
    private RankProcessMain()
    {
    }

    /**
     * @param args none.
     */
    public static void main(final String[] args)
    {
        try (Communicator world = Stagecoach.init())
        {
            final int rank = world.rank();
            final int size = world.size();
            final ByteBuffer token = ByteBuffer.allocateDirect(1 << 20);
            if (rank == 0)
            {
                token.putInt(0, 1);
                world.send(token, 1 << 18, Datatype.INT, 1, 1);
                world.recv(token, 1 << 18, Datatype.INT, size - 1, 1);
                System.out.println("RING " + token.getInt(0));
            }
            else
            {
                world.recv(token, 1 << 18, Datatype.INT, rank - 1, 1);
                token.putInt(0, token.getInt(0) + 1);
                world.send(token, 1 << 18, Datatype.INT, (rank + 1) % size, 1);
            }
            final int victim = size - 1;
            if (rank == victim)
            {
                System.out.println("READY " + rank);
                System.out.flush();
                Thread.sleep(60_000);
                return;
            }
            final Request fromVictim = world.irecv(ByteBuffer.allocateDirect(64), 16, Datatype.INT, victim, 2);
            final Request toVictim = world.isend(ByteBuffer.allocateDirect(1 << 20), 1 << 18, Datatype.INT, victim, 3);
            System.out.println("WAITING " + rank);
            System.out.flush();
            report(fromVictim);
            report(toVictim);
            if (rank == 0)
            {
                world.send(ByteBuffer.allocateDirect(4), 1, Datatype.INT, 1, 4);
            }
            else if (rank == 1)
            {
                world.recv(ByteBuffer.allocateDirect(4), 1, Datatype.INT, 0, 4);
            }
            System.out.println("DONE " + rank);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }

    private static void report(final Request request)
    {
        try
        {
            request.await(Duration.ofSeconds(30));
            System.out.println("COMPLETED " + request);
        }
        catch (final PeerLostException ex)
        {
            System.out.println("FAILED peer=" + ex.peer() + " " + ex.getMessage());
        }
        System.out.flush();
    }
}
