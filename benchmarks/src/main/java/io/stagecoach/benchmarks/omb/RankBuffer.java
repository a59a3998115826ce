package io.stagecoach.benchmarks.omb;

import java.nio.ByteBuffer;

import io.stagecoach.device.Allocation;
import io.stagecoach.device.DeviceRuntime;
import io.stagecoach.device.DeviceStream;
import io.stagecoach.rank.Communicator;
import org.agrona.BufferUtil;

/**
 * A benchmark buffer of one rank, in host memory (memory for messages from {@link Communicator#allocate(long)}, as an
 * MPI program takes it from MPI_Alloc_mem) or in device memory (an allocation on the rank's default device, emulated
 * where there is no GPU). Contents are written and read through host staging copies,
 * so device memory is never touched directly by the host.
 */
final class RankBuffer implements AutoCloseable
{
    private static final int PAGE_BYTES = 4096;

    private final MemoryLocation location;
    private final long lengthBytes;
    private final ByteBuffer host;
    private final Allocation device;
    private final DeviceStream stream;
    private final Communicator comm;

    private RankBuffer(
        final MemoryLocation location,
        final long lengthBytes,
        final ByteBuffer host,
        final Allocation device,
        final DeviceStream stream,
        final Communicator comm)
    {
        this.location = location;
        this.lengthBytes = lengthBytes;
        this.host = host;
        this.device = device;
        this.stream = stream;
        this.comm = comm;
    }

    static RankBuffer allocate(
        final MemoryLocation location, final long lengthBytes, final DeviceRuntime runtime, final Communicator comm)
    {
        if (lengthBytes > Integer.MAX_VALUE)
        {
            throw new IllegalArgumentException("buffer of " + lengthBytes + " bytes exceeds " + Integer.MAX_VALUE);
        }
        if (location == MemoryLocation.HOST)
        {
            return new RankBuffer(location, lengthBytes, comm.allocate(Math.max(lengthBytes, 1)), null, null, comm);
        }
        final Allocation device = runtime.allocate(lengthBytes);
        return new RankBuffer(location, lengthBytes, null, device, runtime.createStream(), null);
    }

    MemoryLocation location()
    {
        return location;
    }

    long lengthBytes()
    {
        return lengthBytes;
    }

    /**
     * @param offsetBytes where displacement 0 of the datatype lies.
     * @return the part of the buffer from that offset, to send from or receive into.
     */
    BufferRegion region(final long offsetBytes)
    {
        if (offsetBytes < 0 || offsetBytes >= lengthBytes)
        {
            throw new IllegalArgumentException("offset " + offsetBytes + " outside [0, " + lengthBytes + ")");
        }
        if (host != null)
        {
            return BufferRegion.of(host.duplicate().position((int)offsetBytes).slice());
        }
        return BufferRegion.of(device.address() + offsetBytes, lengthBytes - offsetBytes);
    }

    /**
     * Copies host bytes in: {@code source}'s remaining bytes land at {@code offsetBytes}.
     */
    void write(final long offsetBytes, final ByteBuffer source)
    {
        final int length = source.remaining();
        checkRange(offsetBytes, length);
        if (host != null)
        {
            host.duplicate().position((int)offsetBytes).put(source.duplicate());
            return;
        }
        final ByteBuffer staging = staging(source, length);
        stream.copy(device.address() + offsetBytes, BufferUtil.address(staging), length);
        stream.synchronize();
    }

    /**
     * Copies bytes out: {@code destination}'s remaining bytes are filled from {@code offsetBytes}.
     */
    void read(final long offsetBytes, final ByteBuffer destination)
    {
        final int length = destination.remaining();
        checkRange(offsetBytes, length);
        if (host != null)
        {
            destination.duplicate().put(host.duplicate().position((int)offsetBytes).limit((int)offsetBytes + length));
            return;
        }
        final ByteBuffer staging = BufferUtil.allocateDirectAligned(Math.max(length, 1), PAGE_BYTES);
        stream.copy(BufferUtil.address(staging), device.address() + offsetBytes, length);
        stream.synchronize();
        destination.duplicate().put(staging.limit(length));
    }

    public void close()
    {
        if (device != null)
        {
            stream.close();
            device.close();
        }
        else
        {
            comm.free(host);
        }
    }

    private static ByteBuffer staging(final ByteBuffer source, final int length)
    {
        if (source.isDirect())
        {
            return source;
        }
        final ByteBuffer staging = BufferUtil.allocateDirectAligned(Math.max(length, 1), PAGE_BYTES);
        staging.put(source.duplicate()).flip();
        return staging;
    }

    private void checkRange(final long offsetBytes, final int length)
    {
        if (offsetBytes < 0 || offsetBytes + length > lengthBytes)
        {
            throw new IllegalArgumentException("range [" + offsetBytes + ", " + (offsetBytes + length) +
                ") outside the buffer of " + lengthBytes + " bytes");
        }
    }
}
