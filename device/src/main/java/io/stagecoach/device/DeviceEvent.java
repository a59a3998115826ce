package io.stagecoach.device;

import java.util.concurrent.CompletableFuture;

/**
 * A marker recorded in a {@link DeviceStream}; it completes once the work enqueued before it is done. Completion is
 * observed without blocking through {@link DeviceRuntime#onComplete(DeviceEvent, CompletionHandler, long)} or
 * {@link DeviceRuntime#whenComplete(DeviceEvent)}. One event awaits one recording at a time: record it again only
 * after its completion was delivered.
 */
public final class DeviceEvent implements AutoCloseable
{
    private final DeviceRuntime runtime;
    private final int device;
    private final BackendEvent backend;
    private volatile boolean closed;
    private boolean awaited;
    private CompletionHandler handler;
    private long token;
    private CompletableFuture<DeviceEvent> future;

    DeviceEvent(final DeviceRuntime runtime, final int device, final BackendEvent backend)
    {
        this.runtime = runtime;
        this.device = device;
        this.backend = backend;
    }

    /**
     * @return the device the event belongs to.
     */
    public int device()
    {
        return device;
    }

    /**
     * Same as {@code stream.record(this)}.
     *
     * @param stream to record in.
     */
    public void record(final DeviceStream stream)
    {
        stream.record(this);
    }

    /**
     * Non-blocking query.
     *
     * @return true when the latest recording completed, or the event was never recorded.
     * @throws DeviceException when the work before the recording failed.
     */
    public boolean isComplete()
    {
        ensureOpen();
        return backend.poll();
    }

    /**
     * Block until the latest recording completed. For tests, benchmarks and shutdown; never on an actor thread.
     */
    public void synchronize()
    {
        ensureOpen();
        backend.synchronize();
    }

    /**
     * Destroy the event.
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

    BackendEvent backend()
    {
        ensureOpen();
        return backend;
    }

    DeviceRuntime runtime()
    {
        return runtime;
    }

    boolean isClosed()
    {
        return closed;
    }

    synchronized void arm(final CompletionHandler handler, final long token, final CompletableFuture<DeviceEvent> future)
    {
        ensureOpen();
        if (awaited)
        {
            throw new IllegalStateException("event of device " + device + " already awaits a completion");
        }
        awaited = true;
        this.handler = handler;
        this.token = token;
        this.future = future;
    }

    boolean pollQuietly()
    {
        return closed || backend.poll();
    }

    void deliver(final Throwable error)
    {
        final CompletionHandler handler;
        final long token;
        final CompletableFuture<DeviceEvent> future;
        synchronized (this)
        {
            handler = this.handler;
            token = this.token;
            future = this.future;
            this.handler = null;
            this.future = null;
            awaited = false;
        }
        if (future != null)
        {
            if (error == null)
            {
                future.complete(this);
            }
            else
            {
                future.completeExceptionally(error);
            }
        }
        if (handler != null)
        {
            handler.onComplete(this, token, error);
        }
    }

    private void ensureOpen()
    {
        if (closed)
        {
            throw new DeviceException("event of device " + device + " used after close");
        }
    }
}
