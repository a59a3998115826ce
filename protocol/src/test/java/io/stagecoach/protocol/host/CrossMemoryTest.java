package io.stagecoach.protocol.host;

import java.nio.ByteBuffer;

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
