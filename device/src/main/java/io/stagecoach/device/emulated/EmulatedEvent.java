package io.stagecoach.device.emulated;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import io.stagecoach.device.BackendEvent;
import io.stagecoach.device.DeviceException;

/**
 * Recordings are numbered when enqueued; a recording completes when the stream's worker reaches its marker. Streams
 * run in order, so events of one stream complete in order.
 */
final class EmulatedEvent implements BackendEvent
{
    private final int device;
    private final AtomicLong recorded = new AtomicLong();
    private final List<WaitOp> waiters = new ArrayList<>();
    private volatile long completed;
    private volatile Throwable failure;
    private volatile long failedGeneration = -1;

    EmulatedEvent(final int device)
    {
        this.device = device;
    }

    long nextGeneration()
    {
        return recorded.incrementAndGet();
    }

    long latestGeneration()
    {
        return recorded.get();
    }

    boolean reached(final long generation)
    {
        return completed >= generation;
    }

    void complete(final long generation, final Throwable streamFailure)
    {
        final List<WaitOp> ready = new ArrayList<>();
        synchronized (this)
        {
            if (streamFailure != null)
            {
                failure = streamFailure;
                failedGeneration = generation;
            }
            if (generation > completed)
            {
                completed = generation;
            }
            waiters.removeIf(op ->
            {
                if (op.target() <= generation)
                {
                    ready.add(op);
                    return true;
                }
                return false;
            });
            notifyAll();
        }
        ready.forEach(WaitOp::wake);
    }

    synchronized void addWaiter(final WaitOp op)
    {
        waiters.add(op);
    }

    @Override
    public boolean poll()
    {
        final long latest = recorded.get();
        if (completed < latest)
        {
            return false;
        }
        if (failedGeneration == latest)
        {
            throw new DeviceException("work before an event of emulated device " + device + " failed: " +
                failure.getMessage(), failure);
        }
        return true;
    }

    @Override
    public void synchronize()
    {
        final long latest = recorded.get();
        synchronized (this)
        {
            while (completed < latest)
            {
                try
                {
                    wait();
                }
                catch (final InterruptedException ex)
                {
                    Thread.currentThread().interrupt();
                    throw new DeviceException("interrupted while waiting for an event of emulated device " + device);
                }
            }
        }
        poll();
    }

    @Override
    public void close()
    {
    }
}
