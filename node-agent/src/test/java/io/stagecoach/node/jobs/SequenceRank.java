package io.stagecoach.node.jobs;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.SplittableRandom;

import io.stagecoach.protocol.datatype.Datatype;
import io.stagecoach.rank.Communicator;
import io.stagecoach.rank.Stagecoach;

/**
 * Two ranks: rank 0 sends {@code COUNT} messages of random sizes (0 to {@code MAX_BYTES}) on one tag, each starting
 * with its sequence number and filled from a generator seeded by it; rank 1 receives them into one buffer and checks
 * that each arrived in order, whole and unchanged, then prints {@code SEQUENCE received=N wrong=W MB/s=R}. Both
 * directions: rank 1 then sends the same way back.
 */
public final class SequenceRank
{
    private static final Duration TIMEOUT = Duration.ofSeconds(120);
    private static final int TAG = 7;

    private SequenceRank()
    {
    }

    public static void main(final String[] args)
    {
        final int count = Integer.parseInt(args[0]);
        final int maxBytes = Integer.parseInt(args[1]);
        try (Communicator world = Stagecoach.init())
        {
            final ByteBuffer buffer = ByteBuffer.allocateDirect(Math.max(8, maxBytes + 8));
            for (int sender = 0; sender < 2; sender++)
            {
                if (world.rank() == sender)
                {
                    send(world, buffer, count, maxBytes, 1 - sender);
                }
                else
                {
                    receive(world, buffer, count, maxBytes, sender);
                }
            }
        }
    }

    private static void send(final Communicator world, final ByteBuffer buffer, final int count, final int maxBytes,
        final int peer)
    {
        for (int sequence = 0; sequence < count; sequence++)
        {
            final int length = fill(buffer, sequence, maxBytes);
            world.send(buffer.clear(), length, Datatype.BYTE, peer, TAG);
        }
    }

    private static void receive(final Communicator world, final ByteBuffer buffer, final int count,
        final int maxBytes, final int peer)
    {
        final ByteBuffer expected = ByteBuffer.allocateDirect(Math.max(8, maxBytes + 8));
        int wrong = 0;
        long bytes = 0;
        final long startNs = System.nanoTime();
        for (int sequence = 0; sequence < count; sequence++)
        {
            final long length = world.recv(buffer.clear(), maxBytes + 8, Datatype.BYTE, peer, TAG).count();
            final int expectedLength = fill(expected, sequence, maxBytes);
            bytes += length;
            if (length != expectedLength ||
                buffer.clear().limit((int)length).mismatch(expected.clear().limit(expectedLength)) != -1)
            {
                if (wrong++ < 5)
                {
                    System.out.println("WRONG message " + sequence + " from " + peer + ": " + length + " bytes, " +
                        "sequence " + (length >= 8 ? buffer.getLong(0) : -1) + ", expected " + expectedLength);
                }
            }
        }
        final double seconds = (System.nanoTime() - startNs) / 1e9;
        System.out.printf("SEQUENCE from %d received=%d wrong=%d MB/s=%.1f%n", peer, count, wrong,
            bytes / 1e6 / seconds);
        System.out.flush();
    }

    private static int fill(final ByteBuffer buffer, final int sequence, final int maxBytes)
    {
        final SplittableRandom random = new SplittableRandom(0x10551L + sequence);
        final int length = 8 + random.nextInt(maxBytes + 1);
        buffer.clear();
        buffer.putLong(0, sequence);
        for (int i = 8; i < length; i++)
        {
            buffer.put(i, (byte)random.nextInt(256));
        }
        return length;
    }
}
