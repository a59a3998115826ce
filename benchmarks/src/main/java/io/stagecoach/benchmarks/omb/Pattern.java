package io.stagecoach.benchmarks.omb;

import java.nio.ByteBuffer;

/**
 * The bytes a rank sends, so that the receiver can check what arrived once per size, outside the timed loop (the
 * same pattern as the C peer's).
 */
final class Pattern
{
    private Pattern()
    {
    }

    static byte at(final long index, final int seed)
    {
        return (byte)((index * 31 + seed) & 0x7f);
    }

    static ByteBuffer of(final long sizeBytes, final int seed)
    {
        final ByteBuffer bytes = ByteBuffer.allocateDirect((int)sizeBytes);
        for (int i = 0; i < sizeBytes; i++)
        {
            bytes.put(i, at(i, seed));
        }
        return bytes;
    }

    static ByteBuffer zeros(final long sizeBytes)
    {
        return ByteBuffer.allocateDirect((int)sizeBytes);
    }

    /**
     * @throws IllegalStateException naming the first byte that differs.
     */
    static void check(final RankBuffer buffer, final long sizeBytes, final int seed, final String context)
    {
        final ByteBuffer received = ByteBuffer.allocateDirect((int)sizeBytes);
        buffer.read(0, received);
        for (int i = 0; i < sizeBytes; i++)
        {
            if (received.get(i) != at(i, seed))
            {
                throw new IllegalStateException(context + ": byte " + i + " of " + sizeBytes + " is " +
                    received.get(i) + ", expected " + at(i, seed));
            }
        }
    }
}
