package io.stagecoach.device;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class IpcHandleTest
{
    @Test
    void shouldSurviveTheWire()
    {
        final byte[] opaque = new byte[IpcHandle.OPAQUE_BYTES];
        for (int i = 0; i < opaque.length; i++)
        {
            opaque[i] = (byte)(i * 7);
        }
        final IpcHandle handle = new IpcHandle(DeviceKind.CUDA, 3, 4242, 0x7f00_0000_0000L, 1 << 20, 4096, 65536,
            17, opaque);
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[IpcHandle.ENCODED_LENGTH + 8]);
        handle.encode(buffer, 8);
        final IpcHandle decoded = IpcHandle.decode(buffer, 8);
        assertEquals(DeviceKind.CUDA, decoded.kind());
        assertEquals(3, decoded.device());
        assertEquals(4242, decoded.processId());
        assertEquals(0x7f00_0000_0000L, decoded.allocationAddress());
        assertEquals(1 << 20, decoded.allocationBytes());
        assertEquals(4096, decoded.offsetBytes());
        assertEquals(65536, decoded.lengthBytes());
        assertEquals(17, decoded.exportNumber());
        assertArrayEquals(opaque, decoded.opaque());
        assertTrue(decoded.sameAllocation(handle));
        assertFalse(new IpcHandle(DeviceKind.CUDA, 3, 4242, 0x7f00_0000_0000L, 1 << 20, 4096, 65536, 18, opaque)
            .sameAllocation(handle), "equal opaque bytes of another export");
    }

    @Test
    void shouldRefuseBytesThatAreNoHandle()
    {
        final IllegalArgumentException error = assertThrows(IllegalArgumentException.class,
            () -> IpcHandle.fromBytes(new byte[IpcHandle.ENCODED_LENGTH]));
        assertTrue(error.getMessage().contains("magic"), error.getMessage());
        assertThrows(IllegalArgumentException.class, () -> IpcHandle.fromBytes(new byte[12]));
    }
}
