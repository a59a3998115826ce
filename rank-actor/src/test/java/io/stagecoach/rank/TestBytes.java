package io.stagecoach.rank;

import java.nio.ByteBuffer;

import io.stagecoach.device.RandomTypes;

/**
 * Byte patterns of the tests that move messages: random source bytes and a poison that no message leaves by chance.
 */
final class TestBytes
{
    private TestBytes()
    {
    }

    /**
     * @return a direct buffer of random bytes from the seeded generator (at least one byte long).
     */
    static ByteBuffer random(final RandomTypes random, final int lengthBytes)
    {
        final byte[] bytes = new byte[lengthBytes];
        random.nextBytes(bytes);
        return ByteBuffer.allocateDirect(Math.max(1, lengthBytes)).put(bytes).clear();
    }

    /**
     * @return a direct buffer of a pattern that depends on each byte's position (at least one byte long).
     */
    static ByteBuffer poison(final int lengthBytes)
    {
        final ByteBuffer poison = ByteBuffer.allocateDirect(Math.max(1, lengthBytes));
        for (int i = 0; i < lengthBytes; i++)
        {
            poison.put(i, (byte)(0xA5 ^ i * 7));
        }
        return poison;
    }
}
