package io.stagecoach.rank;

import java.nio.ByteBuffer;

import io.stagecoach.device.Allocation;
import io.stagecoach.device.DeviceRuntime;
import io.stagecoach.device.DeviceStream;
import org.agrona.BufferUtil;

/**
 * A test buffer in host memory (a direct buffer) or in memory of a device, written and read whole from the host.
 */
final class TestMemory implements AutoCloseable
{
    private final DeviceRuntime runtime;
    private final Allocation allocation;
    private final ByteBuffer host;
    private final int lengthBytes;

    private TestMemory(final DeviceRuntime runtime, final Allocation allocation, final ByteBuffer host,
        final int lengthBytes)
    {
        this.runtime = runtime;
        this.allocation = allocation;
        this.host = host;
        this.lengthBytes = lengthBytes;
    }

    static TestMemory host(final int lengthBytes)
    {
        return new TestMemory(null, null, ByteBuffer.allocateDirect(Math.max(1, lengthBytes)), lengthBytes);
    }

    static TestMemory device(final DeviceRuntime runtime, final int device, final int lengthBytes)
    {
        return new TestMemory(runtime, runtime.allocate(device, Math.max(1, lengthBytes)), null, lengthBytes);
    }

    static TestMemory of(final boolean onDevice, final DeviceRuntime runtime, final int device, final int lengthBytes)
    {
        return onDevice ? device(runtime, device, lengthBytes) : host(lengthBytes);
    }

    long address()
    {
        return allocation != null ? allocation.address() : BufferUtil.address(host);
    }

    /**
     * @return the memory as a send or a receive takes it: the allocation, or the direct buffer.
     */
    DataBuffer dataBuffer()
    {
        return allocation != null ? DataBuffer.of(allocation) : DataBuffer.of(host);
    }

    int lengthBytes()
    {
        return lengthBytes;
    }

    /**
     * @param content at least {@link #lengthBytes()} bytes from position 0, copied in.
     */
    void write(final ByteBuffer content)
    {
        copy(address(), BufferUtil.address(content));
    }

    /**
     * @return a copy of every byte.
     */
    ByteBuffer read()
    {
        final ByteBuffer copy = ByteBuffer.allocateDirect(Math.max(1, lengthBytes));
        copy(BufferUtil.address(copy), address());
        return copy.limit(lengthBytes);
    }

    public void close()
    {
        if (allocation != null)
        {
            allocation.free();
        }
    }

    private void copy(final long dst, final long src)
    {
        if (lengthBytes == 0)
        {
            return;
        }
        if (allocation == null)
        {
            org.agrona.UnsafeApi.copyMemory(null, src, null, dst, lengthBytes);
            return;
        }
        try (DeviceStream stream = runtime.createStream(allocation.device()))
        {
            stream.copy(dst, src, lengthBytes);
            stream.synchronize();
        }
    }
}
