package io.stagecoach.device.cuda;

import io.stagecoach.device.DeviceBackend;
import io.stagecoach.device.DeviceBackendProvider;
import io.stagecoach.device.DeviceContext;
import io.stagecoach.device.DeviceKind;
import jcuda.driver.JCudaDriver;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Opens the CUDA back end where JCuda's native library loads, {@code cuInit} succeeds and at least one GPU is visible.
 * The library is loaded by {@link JCudaLibrary} before anything else touches {@code JCudaDriver}.
 */
public final class CudaBackendProvider implements DeviceBackendProvider
{
    private static final Logger LOG = LoggerFactory.getLogger(CudaBackendProvider.class);
    private static volatile Boolean available;

    @Override
    public DeviceKind kind()
    {
        return DeviceKind.CUDA;
    }

    @Override
    public boolean isAvailable()
    {
        Boolean known = available;
        if (known == null)
        {
            known = probe();
            available = known;
        }
        return known;
    }

    @Override
    public DeviceBackend open(final DeviceContext context)
    {
        JCudaLibrary.ensureLoaded();
        return new CudaBackend(context);
    }

    /**
     * @return why CUDA cannot be used here, or null when it can.
     */
    public static String unavailableReason()
    {
        final Throwable loadFailure = JCudaLibrary.load();
        if (loadFailure != null)
        {
            return "JCuda did not load: " + loadFailure;
        }
        try
        {
            JCudaDriver.setExceptionsEnabled(false);
            final int init = JCudaDriver.cuInit(0);
            if (init != 0)
            {
                return "cuInit failed: " + jcuda.driver.CUresult.stringFor(init);
            }
            final int[] count = new int[1];
            final int result = JCudaDriver.cuDeviceGetCount(count);
            if (result != 0)
            {
                return "cuDeviceGetCount failed: " + jcuda.driver.CUresult.stringFor(result);
            }
            return count[0] > 0 ? null : "no CUDA device visible";
        }
        catch (final Throwable ex)
        {
            return "JCuda did not load: " + ex;
        }
    }

    private static boolean probe()
    {
        final String reason = unavailableReason();
        if (reason != null)
        {
            LOG.debug("CUDA back end unavailable: {}", reason);
        }
        return reason == null;
    }
}
