package io.stagecoach.device.emulated;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Holds a stream until an event reaches a recording; the event wakes the stream when it does.
 */
final class WaitOp implements StreamOp
{
    private final EmulatedStream stream;
    private final EmulatedEvent event;
    private final long target;
    private final AtomicBoolean armed = new AtomicBoolean();

    WaitOp(final EmulatedStream stream, final EmulatedEvent event, final long target)
    {
        this.stream = stream;
        this.event = event;
        this.target = target;
    }

    long target()
    {
        return target;
    }

    @Override
    public boolean ready()
    {
        if (event.reached(target))
        {
            return true;
        }
        armed.set(true);
        event.addWaiter(this);
        if (event.reached(target))
        {
            return armed.compareAndSet(true, false);
        }
        return false;
    }

    void wake()
    {
        if (armed.compareAndSet(true, false))
        {
            stream.resume();
        }
    }

    @Override
    public void run(final Throwable streamFailure)
    {
    }
}
