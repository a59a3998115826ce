package io.stagecoach.device;

import io.stagecoach.device.cuda.CudaBackendProvider;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The device contract on the CUDA back end; skipped where no GPU is visible.
 */
@Tag("gpu")
class CudaDeviceTest extends DeviceContractTest
{
    @Override
    protected DeviceRuntime openRuntime()
    {
        final String reason = CudaBackendProvider.unavailableReason();
        Assumptions.assumeTrue(reason == null, () -> "CUDA unavailable: " + reason);
        return DeviceRuntime.open(new DeviceContext().kind(DeviceKind.CUDA));
    }

    @Override
    protected int randomTypeCount()
    {
        return 300;
    }

    @Test
    void shouldChooseCudaAutomaticallyWhereAGpuIsVisible()
    {
        assertTrue(DeviceRuntime.availableKinds().contains(DeviceKind.CUDA));
        try (DeviceRuntime automatic = DeviceRuntime.open(new DeviceContext().kind(null)))
        {
            assertEquals(DeviceKind.CUDA, automatic.kind());
            assertTrue(automatic.deviceName(0).length() > 0);
        }
    }

    @Test
    void shouldAllocateOnTheGpuOfTheLocalRank()
    {
        final int gpus = runtime.deviceCount();
        try (DeviceRuntime byRank = DeviceRuntime.open(new DeviceContext().kind(DeviceKind.CUDA)
            .deviceOrdinal(DeviceContext.NO_DEVICE_ORDINAL).localRank(gpus + 1));
            Allocation memory = byRank.allocate(4096))
        {
            final MemoryRegion seenByTheDriver = runtime.lookup(memory.address());
            runtime.forget(memory.address());
            assertEquals(1 % gpus, byRank.defaultDevice());
            assertEquals(1 % gpus, seenByTheDriver.device());
        }
    }

    @Test
    void shouldRefuseAnOrdinalBeyondTheVisibleGpus()
    {
        final int gpus = runtime.deviceCount();
        final IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
            () -> DeviceRuntime.open(new DeviceContext().kind(DeviceKind.CUDA).deviceOrdinal(gpus)));
        assertTrue(refused.getMessage().startsWith("device ordinal " + gpus + " (DeviceContext.deviceOrdinal) " +
            "outside [0, " + gpus + "): this process sees " + gpus + " CUDA device(s)"), refused.getMessage());
    }
}
