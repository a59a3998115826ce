package io.stagecoach.device;

import java.nio.ByteBuffer;

import org.agrona.BufferUtil;

/**
 * A test buffer in host memory (a direct buffer) or in memory of a device, written and read whole from the host.
 */
public final class TestMemory implements AutoCloseable
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

    public static TestMemory host(final int lengthBytes)
    {
        return new TestMemory(null, null, ByteBuffer.allocateDirect(Math.max(1, lengthBytes)), lengthBytes);
    }

    public static TestMemory device(final DeviceRuntime runtime, final int device, final int lengthBytes)
    {
        return new TestMemory(runtime, runtime.allocate(device, Math.max(1, lengthBytes)), null, lengthBytes);
    }

    public static TestMemory of(final boolean onDevice, final DeviceRuntime runtime, final int device,
        final int lengthBytes)
    {
        return onDevice ? device(runtime, device, lengthBytes) : host(lengthBytes);
    }

    public long address()
    {
        return allocation != null ? allocation.address() : BufferUtil.address(host);
    }

    /**
     * @return the device memory, or null for host memory.
     */
    public Allocation allocation()
    {
        return allocation;
    }

    /**
     * @return the direct buffer, or null for device memory.
     */
    public ByteBuffer host()
    {
        return host;
    }

    public int lengthBytes()
    {
        return lengthBytes;
    }

    /**
     * @param content at least {@link #lengthBytes()} bytes from position 0, copied in.
     */
    public void write(final ByteBuffer content)
    {
        copy(address(), BufferUtil.address(content));
    }

    /**
     * @return a copy of every byte.
     */
    public ByteBuffer read()
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
