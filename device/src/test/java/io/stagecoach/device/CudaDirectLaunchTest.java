package io.stagecoach.device;

import io.stagecoach.device.cuda.CudaBackendProvider;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;

/**
 * The device contract on CUDA with repeated calls started by {@code cuLaunchKernel} ({@link LaunchMode#DIRECT});
 * skipped where no GPU is visible.
 */
@Tag("gpu")
class CudaDirectLaunchTest extends DeviceContractTest
{
    @Override
    protected DeviceRuntime openRuntime()
    {
        final String reason = CudaBackendProvider.unavailableReason();
        Assumptions.assumeTrue(reason == null, () -> "CUDA unavailable: " + reason);
        return DeviceRuntime.open(new DeviceContext().kind(DeviceKind.CUDA).launchMode(LaunchMode.DIRECT));
    }

    @Override
    protected int randomTypeCount()
    {
        return 100;
    }
}
