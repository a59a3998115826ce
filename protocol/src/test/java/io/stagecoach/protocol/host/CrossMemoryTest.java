package io.stagecoach.protocol.host;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import org.agrona.BufferUtil;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

class CrossMemoryTest
{
    @BeforeEach
    void needsTheNativeLibrary()
    {
        assumeTrue(CrossMemory.unavailableReason() == null, CrossMemory.unavailableReason());
    }

    @Test
    void shouldCopyARangeOfAProcessByteForByte()
    {
        final int lengthBytes = 3 * 1024 * 1024 + 13;
        final ByteBuffer source = ByteBuffer.allocateDirect(lengthBytes);
        for (int i = 0; i < lengthBytes; i++)
        {
            source.put(i, (byte)(i * 131 + 17));
        }
        final ByteBuffer target = ByteBuffer.allocateDirect(lengthBytes + 2);
        target.put(0, (byte)0x5A).put(lengthBytes + 1, (byte)0x5A);
        final long read = CrossMemory.read(CrossMemory.pid(), BufferUtil.address(source),
            BufferUtil.address(target) + 1, lengthBytes);
        assertEquals(lengthBytes, read);
        assertEquals(source, target.slice(1, lengthBytes));
        assertEquals((byte)0x5A, target.get(0));
        assertEquals((byte)0x5A, target.get(lengthBytes + 1));
    }

    @Test
    void shouldReadScatteredRangesIntoScatteredRanges()
    {
        final ByteBuffer source = ByteBuffer.allocateDirect(4096);
        for (int i = 0; i < 4096; i++)
        {
            source.put(i, (byte)(i * 7 + 3));
        }
        final ByteBuffer target = ByteBuffer.allocateDirect(4096);
        final ByteBuffer remote = ByteBuffer.allocateDirect(3 * CrossMemory.VECTOR_BYTES).order(ByteOrder.nativeOrder());
        final ByteBuffer local = ByteBuffer.allocateDirect(2 * CrossMemory.VECTOR_BYTES).order(ByteOrder.nativeOrder());
        final long src = BufferUtil.address(source);
        final long dst = BufferUtil.address(target);
        remote.putLong(0, src + 100).putLong(8, 50).putLong(16, src + 1000).putLong(24, 30).putLong(32, src + 3000)
            .putLong(40, 20);
        local.putLong(0, dst + 10).putLong(8, 60).putLong(16, dst + 2000).putLong(24, 40);
        assertEquals(100, CrossMemory.readVectors(CrossMemory.pid(), BufferUtil.address(remote), 3,
            BufferUtil.address(local), 2));
        for (int i = 0; i < 50; i++)
        {
            assertEquals(source.get(100 + i), target.get(10 + i));
        }
        for (int i = 0; i < 10; i++)
        {
            assertEquals(source.get(1000 + i), target.get(60 + i));
        }
        for (int i = 0; i < 20; i++)
        {
            assertEquals(source.get(1010 + i), target.get(2000 + i));
            assertEquals(source.get(3000 + i), target.get(2020 + i));
        }
        assertEquals(0, target.get(9));
        assertEquals(0, target.get(70));
        final IllegalArgumentException error = assertThrows(IllegalArgumentException.class,
            () -> CrossMemory.readVectors(CrossMemory.pid(), 0, 1025, 0, 1));
        assertTrue(error.getMessage().contains("1025 remote"), error.getMessage());
    }

    @Test
    void shouldReportAnUnmappedRemoteRangeAsEfault()
    {
        final ByteBuffer target = ByteBuffer.allocateDirect(64);
        final long read = CrossMemory.read(CrossMemory.pid(), 4096, BufferUtil.address(target), 64);
        assertEquals(-CrossMemory.EFAULT, read);
        assertTrue(CrossMemory.describe(read).startsWith("EFAULT"), CrossMemory.describe(read));
    }

    @Test
    void shouldReportAProcessThatIsGoneAsEsrch() throws Exception
    {
        final Process process = new ProcessBuilder("true").start();
        process.waitFor();
        final ByteBuffer target = ByteBuffer.allocateDirect(64);
        assertEquals(-CrossMemory.ESRCH, CrossMemory.read(process.pid(), 4096, BufferUtil.address(target), 64));
    }

    @Test
    void shouldRejectANegativeLength()
    {
        final IllegalArgumentException error = assertThrows(IllegalArgumentException.class,
            () -> CrossMemory.read(CrossMemory.pid(), 0, 0, -1));
        assertTrue(error.getMessage().contains("-1 bytes"), error.getMessage());
    }

    @Test
    void shouldReadNothingForAnEmptyRange()
    {
        assertEquals(0, CrossMemory.read(CrossMemory.pid(), 0, 0, 0));
    }
}
