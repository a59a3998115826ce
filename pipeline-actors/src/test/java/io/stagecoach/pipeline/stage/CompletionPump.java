package io.stagecoach.pipeline.stage;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import io.stagecoach.device.DeviceRuntime;

/**
 * Delivers the device's completions of a runtime opened without a completion thread, on a thread of its own, and
 * holds them back on demand: while held, device work the stage actors issued may be done on the device, but no actor
 * learns of it, so their work stays in flight.
 */
final class CompletionPump implements AutoCloseable
{
    private final DeviceRuntime runtime;
    private final Thread thread;
    private final AtomicLong cycles = new AtomicLong();
    private volatile boolean held;
    private volatile boolean running = true;

    CompletionPump(final DeviceRuntime runtime)
    {
        this.runtime = runtime;
        this.thread = new Thread(this::run, "completion-pump");
        thread.setDaemon(true);
        thread.start();
    }

    /**
     * Holds completions back from the next duty cycle on; returns once a whole cycle ran held.
     */
    void hold()
    {
        held = true;
        final long from = cycles.get();
        Waits.until(() -> cycles.get() >= from + 2, Duration.ofSeconds(5), "the completion pump to run held");
    }

    /**
     * Delivers completions again, those held back first.
     */
    void release()
    {
        held = false;
    }

    public void close()
    {
        running = false;
        try
        {
            thread.join(5_000);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }

    private void run()
    {
        while (running)
        {
            final int delivered = held ? 0 : runtime.pollCompletions();
            cycles.incrementAndGet();
            if (delivered == 0)
            {
                LockSupport.parkNanos(20_000);
            }
        }
    }
}
