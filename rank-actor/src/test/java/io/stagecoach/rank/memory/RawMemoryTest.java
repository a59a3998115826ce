package io.stagecoach.rank.memory;

import java.nio.ByteBuffer;

import org.agrona.BufferUtil;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

class RawMemoryTest
{
    @Test
    void shouldCopyEveryLengthAtEveryAlignmentAndNothingMore()
    {
        final ByteBuffer source = ByteBuffer.allocateDirect(512);
        for (int i = 0; i < source.capacity(); i++)
        {
            source.put(i, (byte)(i * 13 + 1));
        }
        final ByteBuffer target = ByteBuffer.allocateDirect(512);
        for (int length = 0; length <= 2 * RawMemory.SMALL_COPY_BYTES + 3; length++)
        {
            for (int shift = 0; shift < 8; shift++)
            {
                for (int i = 0; i < target.capacity(); i++)
                {
                    target.put(i, (byte)0x5A);
                }
                RawMemory.copy(BufferUtil.address(source) + shift, BufferUtil.address(target) + 16 + shift, length);
                for (int i = 0; i < target.capacity(); i++)
                {
                    final int copied = i - 16 - shift;
                    final byte expected = copied >= 0 && copied < length ? source.get(shift + copied) : (byte)0x5A;
                    assertEquals(expected, target.get(i), "length " + length + " shift " + shift + " byte " + i);
                }
            }
        }
    }
}
