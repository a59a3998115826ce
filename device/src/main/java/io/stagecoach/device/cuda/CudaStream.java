package io.stagecoach.device.cuda;

import io.stagecoach.device.BackendEvent;
import io.stagecoach.device.BackendStream;
import jcuda.driver.CUresult;
import jcuda.driver.CUstream;
import jcuda.driver.CUstreamWaitValue_flags;
import jcuda.driver.CUstreamWriteValue_flags;
import jcuda.driver.CUstream_flags;

import static jcuda.driver.JCudaDriver.cuEventRecord;
import static jcuda.driver.JCudaDriver.cuMemcpyAsync;
import static jcuda.driver.JCudaDriver.cuStreamCreate;
import static jcuda.driver.JCudaDriver.cuStreamDestroy;
import static jcuda.driver.JCudaDriver.cuStreamQuery;
import static jcuda.driver.JCudaDriver.cuStreamSynchronize;
import static jcuda.driver.JCudaDriver.cuStreamWaitEvent;
import static jcuda.driver.JCudaDriver.cuStreamWaitValue64;
import static jcuda.driver.JCudaDriver.cuStreamWriteValue64;

/**
 * A non-blocking CUDA stream. Copies go through {@code cuMemcpyAsync}, which under unified addressing infers the
 * direction (host to device, device to host, device to device, between devices) from the addresses.
 * <p>
 * With {@link io.stagecoach.device.LaunchMode#RESIDENT} the stream may own a {@link ResidentKernel}. Stream order
 * holds both ways: a job goes to the resident kernel only while the stream has nothing else queued (known from the
 * host, or asked of the driver once), and work enqueued after a job first waits on the stream for the kernel's count
 * of finished jobs to reach it.
 */
final class CudaStream implements BackendStream
{
    private final CudaDevice device;
    private final CUstream stream = new CUstream();
    private final ResidentKernels residents;
    private final boolean relay;
    private ResidentKernel resident;
    private boolean busy;
    private long orderedAfterJobs;

    /**
     * @param device    the stream belongs to.
     * @param residents the back end's resident kernels, or null when the stream never uses one.
     * @param relay     for a resident kernel: only its first block polls host memory.
     */
    CudaStream(final CudaDevice device, final ResidentKernels residents, final boolean relay)
    {
        this.device = device;
        this.residents = residents;
        this.relay = relay;
        device.makeCurrent();
        Cuda.check(cuStreamCreate(stream, CUstream_flags.CU_STREAM_NON_BLOCKING), "cuStreamCreate(device " +
            device.ordinal() + ")");
    }

    CudaDevice device()
    {
        return device;
    }

    /**
     * The stream to enqueue work on, ordered after every job handed to the resident kernel so far.
     *
     * @return the CUDA stream.
     */
    synchronized CUstream enqueue()
    {
        final ResidentKernel kernel = resident;
        if (kernel != null)
        {
            final long submitted = kernel.submitted();
            if (submitted > orderedAfterJobs)
            {
                if (kernel.completed() < submitted)
                {
                    device.makeCurrent();
                    Cuda.check(cuStreamWaitValue64(stream, new DevicePointer(kernel.completedWordDeviceAddress()),
                        submitted, CUstreamWaitValue_flags.CU_STREAM_WAIT_VALUE_GEQ),
                        "cuStreamWaitValue64(resident kernel jobs, device " + device.ordinal() + ")");
                }
                orderedAfterJobs = submitted;
            }
        }
        busy = true;
        return stream;
    }

    /**
     * Hand a job to the stream's resident kernel when stream order allows it.
     *
     * @param job    device address of the job.
     * @param blocks of the job.
     * @param signal the event the job signals.
     * @return the kernel that took the job, or null: enqueue a launch instead.
     */
    synchronized ResidentKernel trySubmitResident(final long job, final long blocks, final CudaFlagEvent signal)
    {
        if (residents == null || !isIdle())
        {
            return null;
        }
        if (resident == null)
        {
            residents.pause();
            try
            {
                resident = new ResidentKernel(device, residents, relay);
            }
            finally
            {
                residents.resume();
            }
        }
        if (blocks > (long)resident.blocks() * ResidentKernel.MAX_ROUNDS)
        {
            return null;
        }
        return resident.trySubmit(job, signal) ? resident : null;
    }

    @Override
    public void copy(final long dstAddress, final long srcAddress, final long lengthBytes)
    {
        final CUstream target = enqueue();
        device.makeCurrent();
        final int result = cuMemcpyAsync(
            new DevicePointer(dstAddress), new DevicePointer(srcAddress), lengthBytes, target);
        if (result != 0)
        {
            throw Cuda.failure(result, "cuMemcpyAsync(dst 0x" + Long.toHexString(dstAddress) + ", src 0x" +
                Long.toHexString(srcAddress) + ", " + lengthBytes + " bytes)");
        }
    }

    @Override
    public void record(final BackendEvent event)
    {
        final CUstream target = enqueue();
        device.makeCurrent();
        if (event instanceof CudaFlagEvent flag)
        {
            final long count = flag.nextWrite(target);
            Cuda.check(cuStreamWriteValue64(target, new DevicePointer(flag.writtenWordDeviceAddress()), count,
                CUstreamWriteValue_flags.CU_STREAM_WRITE_VALUE_DEFAULT), "cuStreamWriteValue64(device " +
                device.ordinal() + ")");
        }
        else
        {
            Cuda.check(cuEventRecord(((CudaEvent)event).event(), target), "cuEventRecord(device " +
                device.ordinal() + ")");
        }
    }

    @Override
    public void waitFor(final BackendEvent event)
    {
        final CUstream target = enqueue();
        device.makeCurrent();
        if (event instanceof CudaFlagEvent flag)
        {
            waitAtLeast(target, flag.writtenWordDeviceAddress(), flag.expectedWritten());
            waitAtLeast(target, flag.signalledWordDeviceAddress(), flag.expectedSignalled());
        }
        else
        {
            Cuda.check(cuStreamWaitEvent(target, ((CudaEvent)event).event(), 0), "cuStreamWaitEvent(device " +
                device.ordinal() + ")");
        }
    }

    private void waitAtLeast(final CUstream target, final long wordAddress, final long count)
    {
        if (count > 0)
        {
            Cuda.check(cuStreamWaitValue64(target, new DevicePointer(wordAddress), count,
                CUstreamWaitValue_flags.CU_STREAM_WAIT_VALUE_GEQ), "cuStreamWaitValue64(device " + device.ordinal() +
                ")");
        }
    }

    @Override
    public void synchronize()
    {
        final ResidentKernel kernel;
        synchronized (this)
        {
            kernel = resident;
        }
        Cuda.check(cuStreamSynchronize(stream), "cuStreamSynchronize(device " + device.ordinal() + ")");
        if (kernel != null)
        {
            kernel.awaitCompleted(kernel.submitted());
        }
    }

    @Override
    public void close()
    {
        final ResidentKernel kernel;
        synchronized (this)
        {
            kernel = resident;
            resident = null;
        }
        if (kernel != null)
        {
            residents.pause();
            try
            {
                kernel.close();
            }
            finally
            {
                residents.resume();
            }
        }
        device.makeCurrent();
        Cuda.check(cuStreamDestroy(stream), "cuStreamDestroy(device " + device.ordinal() + ")");
    }

    private boolean isIdle()
    {
        if (!busy)
        {
            return true;
        }
        device.makeCurrent();
        final int result = cuStreamQuery(stream);
        if (result == CUresult.CUDA_SUCCESS)
        {
            busy = false;
            return true;
        }
        if (result != CUresult.CUDA_ERROR_NOT_READY)
        {
            throw Cuda.failure(result, "cuStreamQuery(device " + device.ordinal() + ")");
        }
        return false;
    }
}
