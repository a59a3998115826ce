package io.stagecoach.device;

/**
 * An ordered queue of asynchronous device work: copies, pack and unpack kernels, event recordings. Every enqueue
 * returns at once; completion is observed through a {@link DeviceEvent}.
 */
public final class DeviceStream implements AutoCloseable
{
    private final DeviceRuntime runtime;
    private final int device;
    private final BackendStream backend;
    private volatile boolean closed;

    DeviceStream(final DeviceRuntime runtime, final int device, final BackendStream backend)
    {
        this.runtime = runtime;
        this.device = device;
        this.backend = backend;
    }

    /**
     * @return the device the stream runs on.
     */
    public int device()
    {
        return device;
    }

    /**
     * Enqueue a copy of {@code lengthBytes} from {@code srcAddress} to {@code dstAddress}: host to device, device to
     * host, device to device, or between devices; the direction follows from the memory types. Ranges inside known
     * allocations are checked against them.
     *
     * @param dstAddress  destination.
     * @param srcAddress  source.
     * @param lengthBytes to copy; zero does nothing.
     * @throws DeviceException when a range overruns its allocation or touches freed memory.
     */
    public void copy(final long dstAddress, final long srcAddress, final long lengthBytes)
    {
        if (lengthBytes < 0)
        {
            throw new IllegalArgumentException("copy length " + lengthBytes + " is negative");
        }
        ensureOpen();
        if (lengthBytes == 0)
        {
            return;
        }
        runtime.checkRange(srcAddress, lengthBytes, "copy source");
        runtime.checkRange(dstAddress, lengthBytes, "copy destination");
        backend.copy(dstAddress, srcAddress, lengthBytes);
    }

    /**
     * Enqueue a recording of the event: it completes once the work enqueued so far is done.
     *
     * @param event to record; an event of the same runtime.
     */
    public void record(final DeviceEvent event)
    {
        ensureOpen();
        checkSameRuntime(event);
        backend.record(event.backend());
    }

    /**
     * Make work enqueued later wait until the event's latest recording completed (possibly in another stream).
     *
     * @param event to wait for.
     */
    public void waitFor(final DeviceEvent event)
    {
        ensureOpen();
        checkSameRuntime(event);
        backend.waitFor(event.backend());
    }

    /**
     * Block until all work enqueued so far is done. For tests, benchmarks and shutdown; never on an actor thread.
     */
    public void synchronize()
    {
        ensureOpen();
        backend.synchronize();
    }

    /**
     * Destroy the stream after its queued work.
     */
    @Override
    public void close()
    {
        if (!closed)
        {
            closed = true;
            runtime.forget(this);
            backend.close();
        }
    }

    BackendStream backend()
    {
        ensureOpen();
        return backend;
    }

    boolean isClosed()
    {
        return closed;
    }

    private void checkSameRuntime(final DeviceEvent event)
    {
        if (event.runtime() != runtime)
        {
            throw new IllegalArgumentException("event belongs to another device runtime");
        }
    }

    private void ensureOpen()
    {
        if (closed)
        {
            throw new DeviceException("stream of device " + device + " used after close");
        }
    }
}
