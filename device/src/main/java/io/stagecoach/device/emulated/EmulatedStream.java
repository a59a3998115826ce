package io.stagecoach.device.emulated;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;

import io.stagecoach.device.BackendEvent;
import io.stagecoach.device.BackendStream;
import io.stagecoach.device.DeviceException;
import org.agrona.UnsafeApi;

/**
 * An ordered queue run by the worker pool, one op at a time: at most one worker runs a stream at any moment, so its
 * ops run in order. A failed op fails the stream (sticky, as a CUDA error is); later copies are skipped and later
 * events report the failure.
 */
final class EmulatedStream implements BackendStream, Runnable
{
    private static final int OPS_PER_TURN = 64;

    private final int device;
    private final Executor executor;
    private final ConcurrentLinkedQueue<StreamOp> queue = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean scheduled = new AtomicBoolean();
    private volatile Throwable failure;

    EmulatedStream(final int device, final Executor executor)
    {
        this.device = device;
        this.executor = executor;
    }

    void enqueue(final StreamOp op)
    {
        queue.offer(op);
        if (scheduled.compareAndSet(false, true))
        {
            executor.execute(this);
        }
    }

    void resume()
    {
        executor.execute(this);
    }

    @Override
    public void run()
    {
        for (int budget = OPS_PER_TURN; budget > 0; budget--)
        {
            final StreamOp op = queue.peek();
            if (op == null)
            {
                break;
            }
            if (!op.ready())
            {
                return;
            }
            queue.poll();
            try
            {
                op.run(failure);
            }
            catch (final Throwable ex)
            {
                if (failure == null)
                {
                    failure = ex;
                }
            }
        }
        scheduled.set(false);
        if (!queue.isEmpty() && scheduled.compareAndSet(false, true))
        {
            executor.execute(this);
        }
    }

    @Override
    public void copy(final long dstAddress, final long srcAddress, final long lengthBytes)
    {
        enqueue(streamFailure ->
        {
            if (streamFailure == null)
            {
                UnsafeApi.copyMemory(null, srcAddress, null, dstAddress, lengthBytes);
            }
        });
    }

    @Override
    public void record(final BackendEvent event)
    {
        final EmulatedEvent emulated = (EmulatedEvent)event;
        final long generation = emulated.nextGeneration();
        enqueue(streamFailure -> emulated.complete(generation, streamFailure));
    }

    @Override
    public void waitFor(final BackendEvent event)
    {
        final EmulatedEvent emulated = (EmulatedEvent)event;
        final long target = emulated.latestGeneration();
        if (target > 0)
        {
            enqueue(new WaitOp(this, emulated, target));
        }
    }

    @Override
    public void synchronize()
    {
        final CountDownLatch done = new CountDownLatch(1);
        enqueue(streamFailure -> done.countDown());
        try
        {
            done.await();
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new DeviceException("interrupted while synchronizing a stream of emulated device " + device);
        }
        final Throwable failed = failure;
        if (failed != null)
        {
            throw new DeviceException("stream of emulated device " + device + " failed: " + failed.getMessage(),
                failed);
        }
    }

    @Override
    public void close()
    {
    }
}
