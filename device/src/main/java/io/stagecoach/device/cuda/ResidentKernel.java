package io.stagecoach.device.cuda;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.concurrent.TimeUnit;

import io.stagecoach.device.DeviceException;
import jcuda.driver.CUfunction;
import jcuda.driver.CUresult;
import jcuda.driver.CUstream;
import jcuda.driver.CUstream_flags;
import org.agrona.BufferUtil;
import org.agrona.UnsafeApi;

import static jcuda.driver.JCudaDriver.CU_MEMHOSTALLOC_DEVICEMAP;
import static jcuda.driver.JCudaDriver.CU_MEMHOSTALLOC_PORTABLE;
import static jcuda.driver.JCudaDriver.cuLaunchKernel;
import static jcuda.driver.JCudaDriver.cuMemAlloc;
import static jcuda.driver.JCudaDriver.cuMemFree;
import static jcuda.driver.JCudaDriver.cuMemFreeHost;
import static jcuda.driver.JCudaDriver.cuMemHostAlloc;
import static jcuda.driver.JCudaDriver.cuMemHostGetDevicePointer;
import static jcuda.driver.JCudaDriver.cuMemsetD8Async;
import static jcuda.driver.JCudaDriver.cuStreamCreate;
import static jcuda.driver.JCudaDriver.cuStreamDestroy;
import static jcuda.driver.JCudaDriver.cuStreamQuery;
import static jcuda.driver.JCudaDriver.cuStreamSynchronize;

/**
 * The resident pack kernel of one stream ({@code sc_resident} of stagecoach_kernels.cu): launched on a stream of its
 * own with one block per multiprocessor, it takes one job at a time through a doorbell word in mapped pinned host
 * memory. The host writes {@code (sequence << 48) | job address} with a plain store; the kernel's last block stores
 * the count of jobs done into a second word, which the host reads with a plain load and other streams wait on with
 * {@code cuStreamWaitValue64}. A job is the 160-byte {@code ResidentJob} the packer uploaded once per cached launch.
 * Jobs are handed over only once the previous one is done, so they never overlap on the GPU.
 * <p>
 * Address 1 in the doorbell stops the kernel; the last block to leave stores the launch's epoch into a third word.
 * {@link ResidentKernels#pause()} stops it around driver calls that could wait for it; the next job starts it again.
 */
final class ResidentKernel
{
    static final String FUNCTION = "sc_resident";
    static final int JOB_BYTES = 160;
    static final int MAX_ROUNDS = 8;

    private static final long EXIT = 1;
    private static final int DOORBELL = 0;
    private static final int DONE = 64;
    private static final int EXITED = 128;
    private static final int HOST_BYTES = 192;
    private static final int COUNTER = 0;
    private static final int MIRROR = 128;
    private static final int DEVICE_BYTES = 256;
    private static final int ARGUMENT_BYTES = 64;
    private static final long WAIT_LIMIT_NS = TimeUnit.SECONDS.toNanos(10);
    private static final int SPINS_PER_CHECK = 1 << 14;

    private final CudaDevice device;
    private final ResidentKernels registry;
    private final boolean relay;
    private final int blocks;
    private final CUstream stream = new CUstream();
    private final HostPointer host = new HostPointer();
    private final long hostAddress;
    private final long mappedAddress;
    private final DevicePointer scratch = new DevicePointer();
    private final CUfunction function;
    private final ByteBuffer arguments =
        BufferUtil.allocateDirectAligned(ARGUMENT_BYTES + 16, 16).order(ByteOrder.LITTLE_ENDIAN);
    private final HostPointer parameters;
    private volatile long submitted;
    private long doorbell;
    private long epoch;
    private boolean running;
    private boolean closed;
    private DeviceException failure;

    /**
     * Allocate the kernel's words; the caller holds a {@link ResidentKernels#pause()}.
     *
     * @param device   the kernel runs on.
     * @param registry of the back end.
     * @param relay    true: only block 0 polls host memory and relays jobs to the others through device memory.
     */
    ResidentKernel(final CudaDevice device, final ResidentKernels registry, final boolean relay)
    {
        this.device = device;
        this.registry = registry;
        this.relay = relay;
        this.blocks = device.multiprocessors();
        device.makeCurrent();
        Cuda.check(cuMemHostAlloc(host, HOST_BYTES, CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_PORTABLE),
            "cuMemHostAlloc(resident kernel words)");
        hostAddress = host.address();
        UnsafeApi.setMemory(hostAddress, HOST_BYTES, (byte)0);
        final DevicePointer mapped = new DevicePointer();
        Cuda.check(cuMemHostGetDevicePointer(mapped, host, 0), "cuMemHostGetDevicePointer(resident kernel words)");
        mappedAddress = mapped.address();
        Cuda.check(cuMemAlloc(scratch, DEVICE_BYTES), "cuMemAlloc(resident kernel scratch)");
        Cuda.check(cuStreamCreate(stream, CUstream_flags.CU_STREAM_NON_BLOCKING), "cuStreamCreate(resident kernel)");
        Cuda.check(cuMemsetD8Async(scratch, (byte)0, DEVICE_BYTES, stream),
            "cuMemsetD8Async(resident kernel scratch)");
        final long argumentsAddress = BufferUtil.address(arguments);
        arguments.putLong(ARGUMENT_BYTES, argumentsAddress);
        parameters = new HostPointer(argumentsAddress + ARGUMENT_BYTES);
        function = device.function(FUNCTION);
    }

    /**
     * @return blocks of the kernel: a job of more than {@link #MAX_ROUNDS} times as many blocks is left to a launch.
     */
    int blocks()
    {
        return blocks;
    }

    /**
     * @return jobs handed to the kernel since it was created.
     */
    long submitted()
    {
        return submitted;
    }

    /**
     * @return jobs the kernel finished since it was created, as the kernel last stored it.
     */
    long completed()
    {
        return UnsafeApi.getLongVolatile(null, hostAddress + DONE);
    }

    /**
     * @return device address of the word holding {@link #completed()}, for {@code cuStreamWaitValue64}.
     */
    long completedWordDeviceAddress()
    {
        return mappedAddress + DONE;
    }

    /**
     * Hand a job to the kernel, starting it if it is not running.
     *
     * @param job    device address of the job's {@code ResidentJob}, 16-byte aligned.
     * @param signal the event the job's last block signals.
     * @return false, doing nothing, while the previous job runs, while starts are paused, or once the kernel failed.
     */
    synchronized boolean trySubmit(final long job, final CudaFlagEvent signal)
    {
        if (closed || failure != null || completed() != submitted)
        {
            return false;
        }
        if (!running && !registry.start(this, device, this::launch))
        {
            return false;
        }
        signal.signalledBy(stream);
        final long sequence = submitted + 1;
        doorbell = (sequence & 0xFFFF) << 48 | job;
        submitted = sequence;
        UnsafeApi.putLongVolatile(null, hostAddress + DOORBELL, doorbell);
        registry.submitted();
        return true;
    }

    /**
     * Spin until the kernel finished a number of jobs.
     *
     * @param jobs to wait for.
     * @throws DeviceException when the kernel failed or did not get there within 10 s.
     */
    void awaitCompleted(final long jobs)
    {
        if (completed() >= jobs)
        {
            return;
        }
        final long deadline = System.nanoTime() + WAIT_LIMIT_NS;
        int spins = 0;
        while (completed() < jobs)
        {
            if (++spins % SPINS_PER_CHECK == 0)
            {
                checkStream();
                if (System.nanoTime() > deadline)
                {
                    throw new DeviceException("resident pack kernel of device " + device.ordinal() + " finished " +
                        completed() + " of " + jobs + " jobs within " + TimeUnit.NANOSECONDS.toMillis(WAIT_LIMIT_NS) +
                        " ms");
                }
                Thread.yield();
            }
            else
            {
                Thread.onSpinWait();
            }
        }
    }

    /**
     * Stop the kernel once its job is done; it starts again with the next job.
     *
     * @throws DeviceException when it does not stop within 10 s: it then stays marked failed.
     */
    synchronized void stop()
    {
        if (!running)
        {
            return;
        }
        try
        {
            awaitCompleted(submitted);
            doorbell = (submitted & 0xFFFF) << 48 | EXIT;
            UnsafeApi.putLongVolatile(null, hostAddress + DOORBELL, doorbell);
            final long deadline = System.nanoTime() + WAIT_LIMIT_NS;
            int spins = 0;
            while (UnsafeApi.getLongVolatile(null, hostAddress + EXITED) != epoch)
            {
                if (++spins % SPINS_PER_CHECK == 0)
                {
                    checkStream();
                    if (System.nanoTime() > deadline)
                    {
                        throw new DeviceException("resident pack kernel of device " + device.ordinal() +
                            " did not stop within " + TimeUnit.NANOSECONDS.toMillis(WAIT_LIMIT_NS) + " ms");
                    }
                    Thread.yield();
                }
                else
                {
                    Thread.onSpinWait();
                }
            }
            device.makeCurrent();
            Cuda.check(cuStreamSynchronize(stream), "cuStreamSynchronize(resident kernel of device " +
                device.ordinal() + ")");
            running = false;
            registry.stopped(this);
        }
        catch (final DeviceException ex)
        {
            failure = ex;
            throw ex;
        }
    }

    /**
     * Stop the kernel and free its words; the caller holds a {@link ResidentKernels#pause()}.
     */
    synchronized void close()
    {
        if (closed)
        {
            return;
        }
        stop();
        closed = true;
        device.makeCurrent();
        Cuda.check(cuStreamDestroy(stream), "cuStreamDestroy(resident kernel)");
        Cuda.check(cuMemFree(scratch), "cuMemFree(resident kernel scratch)");
        Cuda.check(cuMemFreeHost(host), "cuMemFreeHost(resident kernel words)");
    }

    private void launch()
    {
        epoch++;
        arguments.putLong(0, mappedAddress + DOORBELL);
        arguments.putLong(8, mappedAddress + DONE);
        arguments.putLong(16, mappedAddress + EXITED);
        arguments.putLong(24, scratch.address() + COUNTER);
        arguments.putLong(32, relay ? scratch.address() + MIRROR : 0);
        arguments.putLong(40, doorbell);
        arguments.putLong(48, submitted);
        arguments.putLong(56, epoch);
        device.makeCurrent();
        Cuda.check(cuLaunchKernel(function, blocks, 1, 1, KernelPlan.THREADS, 1, 1, 0, stream, parameters,
            null), "cuLaunchKernel(" + FUNCTION + "<<<" + blocks + ", " + KernelPlan.THREADS + ">>>)");
        running = true;
    }

    private void checkStream()
    {
        device.makeCurrent();
        final int result = cuStreamQuery(stream);
        if (result != CUresult.CUDA_SUCCESS && result != CUresult.CUDA_ERROR_NOT_READY)
        {
            throw Cuda.failure(result, "resident pack kernel of device " + device.ordinal());
        }
    }
}
