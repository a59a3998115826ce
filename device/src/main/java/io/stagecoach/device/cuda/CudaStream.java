package io.stagecoach.device.cuda;

import io.stagecoach.device.BackendEvent;
import io.stagecoach.device.BackendStream;
import jcuda.driver.CUstream;
import jcuda.driver.CUstreamWaitValue_flags;
import jcuda.driver.CUstreamWriteValue_flags;
import jcuda.driver.CUstream_flags;

import static jcuda.driver.JCudaDriver.cuEventRecord;
import static jcuda.driver.JCudaDriver.cuMemcpyAsync;
import static jcuda.driver.JCudaDriver.cuStreamCreate;
import static jcuda.driver.JCudaDriver.cuStreamDestroy;
import static jcuda.driver.JCudaDriver.cuStreamSynchronize;
import static jcuda.driver.JCudaDriver.cuStreamWaitEvent;
import static jcuda.driver.JCudaDriver.cuStreamWaitValue64;
import static jcuda.driver.JCudaDriver.cuStreamWriteValue64;

/**
 * A non-blocking CUDA stream. Copies go through {@code cuMemcpyAsync}, which under unified addressing infers the
 * direction (host to device, device to host, device to device, between devices) from the addresses.
 */
final class CudaStream implements BackendStream
{
    private final CudaDevice device;
    private final CUstream stream = new CUstream();

    CudaStream(final CudaDevice device)
    {
        this.device = device;
        device.makeCurrent();
        Cuda.check(cuStreamCreate(stream, CUstream_flags.CU_STREAM_NON_BLOCKING), "cuStreamCreate(device " +
            device.ordinal() + ")");
    }

    CudaDevice device()
    {
        return device;
    }

    CUstream stream()
    {
        return stream;
    }

    @Override
    public void copy(final long dstAddress, final long srcAddress, final long lengthBytes)
    {
        device.makeCurrent();
        final int result = cuMemcpyAsync(
            new DevicePointer(dstAddress), new DevicePointer(srcAddress), lengthBytes, stream);
        if (result != 0)
        {
            throw Cuda.failure(result, "cuMemcpyAsync(dst 0x" + Long.toHexString(dstAddress) + ", src 0x" +
                Long.toHexString(srcAddress) + ", " + lengthBytes + " bytes)");
        }
    }

    @Override
    public void record(final BackendEvent event)
    {
        device.makeCurrent();
        if (event instanceof CudaFlagEvent flag)
        {
            final long count = flag.nextWrite(stream);
            Cuda.check(cuStreamWriteValue64(stream, new DevicePointer(flag.writtenWordDeviceAddress()), count,
                CUstreamWriteValue_flags.CU_STREAM_WRITE_VALUE_DEFAULT), "cuStreamWriteValue64(device " +
                device.ordinal() + ")");
        }
        else
        {
            Cuda.check(cuEventRecord(((CudaEvent)event).event(), stream), "cuEventRecord(device " +
                device.ordinal() + ")");
        }
    }

    @Override
    public void waitFor(final BackendEvent event)
    {
        device.makeCurrent();
        if (event instanceof CudaFlagEvent flag)
        {
            waitAtLeast(flag.writtenWordDeviceAddress(), flag.expectedWritten());
            waitAtLeast(flag.signalledWordDeviceAddress(), flag.expectedSignalled());
        }
        else
        {
            Cuda.check(cuStreamWaitEvent(stream, ((CudaEvent)event).event(), 0), "cuStreamWaitEvent(device " +
                device.ordinal() + ")");
        }
    }

    private void waitAtLeast(final long wordAddress, final long count)
    {
        if (count > 0)
        {
            Cuda.check(cuStreamWaitValue64(stream, new DevicePointer(wordAddress), count,
                CUstreamWaitValue_flags.CU_STREAM_WAIT_VALUE_GEQ), "cuStreamWaitValue64(device " + device.ordinal() +
                ")");
        }
    }

    @Override
    public void synchronize()
    {
        Cuda.check(cuStreamSynchronize(stream), "cuStreamSynchronize(device " + device.ordinal() + ")");
    }

    @Override
    public void close()
    {
        device.makeCurrent();
        Cuda.check(cuStreamDestroy(stream), "cuStreamDestroy(device " + device.ordinal() + ")");
    }
}
