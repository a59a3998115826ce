package io.stagecoach.device;

import io.stagecoach.device.cuda.CudaBackendProvider;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;

/**
 * Kernel modules on a GPU, which runs the PTX; skipped where no GPU is visible.
 */
@Tag("gpu")
class CudaKernelModuleTest extends KernelModuleContractTest
{
    @Override
    protected DeviceRuntime openRuntime()
    {
        final String reason = CudaBackendProvider.unavailableReason();
        Assumptions.assumeTrue(reason == null, () -> "CUDA unavailable: " + reason);
        return DeviceRuntime.open(new DeviceContext().kind(DeviceKind.CUDA));
    }
}
