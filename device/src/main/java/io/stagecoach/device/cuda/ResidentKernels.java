package io.stagecoach.device.cuda;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The resident pack kernels of one CUDA back end, and the pauses that keep them off the GPU while a driver call that
 * may wait for every running kernel (a free, an allocation, a host registration, an IPC mapping, a context
 * synchronisation) runs. {@link #pause()} stops every running kernel and keeps new ones from starting until the
 * matching {@link #resume()}; a paused kernel starts again on its stream's next call.
 */
final class ResidentKernels
{
    /**
     * Resident kernels running at once on one device: each holds one block of 256 threads and 100 registers per
     * thread on every multiprocessor, and blocks of a third would wait for room that the first two never give back.
     */
    static final int MAX_PER_DEVICE = 2;

    private final List<ResidentKernel> running = new ArrayList<>();
    private final List<CudaDevice> devices = new ArrayList<>();
    private final AtomicLong jobs = new AtomicLong();
    private int pauses;

    /**
     * Stop every running resident kernel and keep them stopped until {@link #resume()}. Pair every call with a
     * {@link #resume()} in a finally block.
     */
    void pause()
    {
        final ResidentKernel[] toStop;
        synchronized (this)
        {
            pauses++;
            toStop = running.toArray(new ResidentKernel[0]);
        }
        for (final ResidentKernel kernel : toStop)
        {
            kernel.stop();
        }
    }

    synchronized void resume()
    {
        if (pauses == 0)
        {
            throw new IllegalStateException("resume without pause");
        }
        pauses--;
    }

    /**
     * Start a kernel unless a pause is in progress or its device runs {@link #MAX_PER_DEVICE} already.
     *
     * @param kernel to start.
     * @param device it runs on.
     * @param start  launches it; runs under this registry's lock, so that no pause can miss it.
     * @return true when started.
     */
    synchronized boolean start(final ResidentKernel kernel, final CudaDevice device, final Runnable start)
    {
        if (pauses > 0)
        {
            return false;
        }
        int onDevice = 0;
        for (final CudaDevice other : devices)
        {
            if (other == device)
            {
                onDevice++;
            }
        }
        if (onDevice >= MAX_PER_DEVICE)
        {
            return false;
        }
        start.run();
        running.add(kernel);
        devices.add(device);
        return true;
    }

    synchronized void stopped(final ResidentKernel kernel)
    {
        final int index = running.indexOf(kernel);
        if (index >= 0)
        {
            running.remove(index);
            devices.remove(index);
        }
    }

    synchronized int runningCount()
    {
        return running.size();
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
