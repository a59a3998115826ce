package io.stagecoach.device.cuda;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The resident pack kernels of the process, and the pauses that keep them off the GPU while a driver call that may
 * wait for every running kernel (a free, an allocation, a host registration, an IPC mapping, a context
 * synchronisation) runs. {@link #pause()} stops every running kernel and keeps new ones from starting until the
 * matching {@link #resume()}; a paused kernel starts again on its stream's next call. The kernels and pauses are
 * shared by every CUDA back end of the process, since runtimes opened side by side share the device's primary
 * context: a free in one must stop the kernels of the other. Each back end has its own instance for counting jobs.
 */
final class ResidentKernels
{
    /**
     * Resident kernels running at once on one device: each holds one block of 256 threads and 100 registers per
     * thread on every multiprocessor, and blocks of a third would wait for room that the first two never give back.
     */
    static final int MAX_PER_DEVICE = 2;

    private static final Object LOCK = new Object();
    private static final List<ResidentKernel> RUNNING = new ArrayList<>();
    private static final List<Integer> ORDINALS = new ArrayList<>();
    private static int pauses;

    private final AtomicLong jobs = new AtomicLong();

    /**
     * Stop every running resident kernel of the process and keep them stopped until {@link #resume()}. Pair every
     * call with a {@link #resume()} in a finally block.
     */
    void pause()
    {
        final ResidentKernel[] toStop;
        synchronized (LOCK)
        {
            pauses++;
            toStop = RUNNING.toArray(new ResidentKernel[0]);
        }
        for (final ResidentKernel kernel : toStop)
        {
            kernel.stop();
        }
    }

    void resume()
    {
        synchronized (LOCK)
        {
            if (pauses == 0)
            {
                throw new IllegalStateException("resume without pause");
            }
            pauses--;
        }
    }

    /**
     * Start a kernel unless a pause is in progress or its device runs {@link #MAX_PER_DEVICE} already.
     *
     * @param kernel to start.
     * @param device it runs on.
     * @param start  launches it; runs under the lock of the process' kernels, so that no pause can miss it.
     * @return true when started.
     */
    boolean start(final ResidentKernel kernel, final CudaDevice device, final Runnable start)
    {
        synchronized (LOCK)
        {
            if (pauses > 0)
            {
                return false;
            }
            int onDevice = 0;
            for (final Integer ordinal : ORDINALS)
            {
                if (ordinal == device.ordinal())
                {
                    onDevice++;
                }
            }
            if (onDevice >= MAX_PER_DEVICE)
            {
                return false;
            }
            start.run();
            RUNNING.add(kernel);
            ORDINALS.add(device.ordinal());
            return true;
        }
    }

    void stopped(final ResidentKernel kernel)
    {
        synchronized (LOCK)
        {
            final int index = RUNNING.indexOf(kernel);
            if (index >= 0)
            {
                RUNNING.remove(index);
                ORDINALS.remove(index);
            }
        }
    }

    /**
     * @return resident kernels running in the process.
     */
    static int runningCount()
    {
        synchronized (LOCK)
        {
            return RUNNING.size();
        }
    }

    void submitted()
    {
        jobs.incrementAndGet();
    }

    long jobs()
    {
        return jobs.get();
    }
}
