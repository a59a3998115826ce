package io.stagecoach.device.cuda;

import io.stagecoach.device.BackendEvent;
import jcuda.driver.CUevent;
import jcuda.driver.CUevent_flags;
import jcuda.driver.CUresult;

import static jcuda.driver.JCudaDriver.cuEventCreate;
import static jcuda.driver.JCudaDriver.cuEventDestroy;
import static jcuda.driver.JCudaDriver.cuEventQuery;
import static jcuda.driver.JCudaDriver.cuEventSynchronize;

/**
 * A CUDA event without timing. Polled by return code: {@code CUDA_ERROR_NOT_READY} is "not yet", never an exception.
 */
final class CudaEvent implements BackendEvent
{
    private final CudaDevice device;
    private final CUevent event = new CUevent();

    CudaEvent(final CudaDevice device)
    {
        this.device = device;
        device.makeCurrent();
        Cuda.check(cuEventCreate(event, CUevent_flags.CU_EVENT_DISABLE_TIMING), "cuEventCreate(device " +
            device.ordinal() + ")");
    }

    CUevent event()
    {
        return event;
    }

    @Override
    public boolean poll()
    {
        device.makeCurrent();
        final int result = cuEventQuery(event);
        if (result == CUresult.CUDA_SUCCESS)
        {
            return true;
        }
        if (result == CUresult.CUDA_ERROR_NOT_READY)
        {
            return false;
        }
        throw Cuda.failure(result, "cuEventQuery(device " + device.ordinal() + ")");
    }

    @Override
    public void synchronize()
    {
        Cuda.check(cuEventSynchronize(event), "cuEventSynchronize(device " + device.ordinal() + ")");
    }

    @Override
    public void close()
    {
        device.makeCurrent();
        Cuda.check(cuEventDestroy(event), "cuEventDestroy(device " + device.ordinal() + ")");
    }
}
