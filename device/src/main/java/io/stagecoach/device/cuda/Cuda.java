package io.stagecoach.device.cuda;

import io.stagecoach.device.DeviceException;
import jcuda.driver.CUresult;

/**
 * The one place where CUDA driver results are checked: a failure names the call and the {@code CUresult}.
 */
final class Cuda
{
    private Cuda()
    {
    }

    /**
     * @param result returned by a driver call.
     * @param call   what was called, with the arguments that help.
     * @throws DeviceException unless the result is {@code CUDA_SUCCESS}.
     */
    static void check(final int result, final String call)
    {
        if (result != CUresult.CUDA_SUCCESS)
        {
            throw failure(result, call);
        }
    }

    static DeviceException failure(final int result, final String call)
    {
        return new DeviceException(call + " failed: " + CUresult.stringFor(result) + " (" + result + ")");
    }
}
