package io.stagecoach.device;

import io.stagecoach.device.cuda.CudaBackendProvider;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;

/**
 * The copy between two layouts on the CUDA back end (one fused kernel per call); skipped where no GPU is visible.
 */
@Tag("gpu")
class CudaTranscoderTest extends DeviceTranscoderContractTest
{
    @Override
    protected DeviceRuntime openRuntime()
    {
        final String reason = CudaBackendProvider.unavailableReason();
        Assumptions.assumeTrue(reason == null, () -> "CUDA unavailable: " + reason);
        return DeviceRuntime.open(new DeviceContext().kind(DeviceKind.CUDA));
    }

    @Override
    protected int randomPairCount()
    {
        return 300;
    }
}
