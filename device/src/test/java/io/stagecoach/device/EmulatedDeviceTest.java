package io.stagecoach.device;

import java.util.List;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The device contract on the emulated back end.
 */
class EmulatedDeviceTest extends DeviceContractTest
{
    @Override
    protected DeviceRuntime openRuntime()
    {
        return DeviceRuntime.open(emulatedContext());
    }

    static DeviceContext emulatedContext()
    {
        return new DeviceContext().kind(DeviceKind.EMULATED).emulatedDeviceCount(2).emulatedMemoryBytes(256L << 20);
    }

    @Test
    void shouldChooseTheBackEndFromConfiguration()
    {
        assertEquals(DeviceKind.EMULATED, runtime.kind());
        assertEquals(2, runtime.deviceCount());
        final List<DeviceKind> available = DeviceRuntime.availableKinds();
        assertTrue(available.contains(DeviceKind.EMULATED));
        final String previous = System.getProperty("stagecoach.device");
        System.setProperty("stagecoach.device", "emulated");
        try
        {
            assertEquals(DeviceKind.EMULATED, new DeviceContext().kind());
        }
        finally
        {
            if (previous == null)
            {
                System.clearProperty("stagecoach.device");
            }
            else
            {
                System.setProperty("stagecoach.device", previous);
            }
        }
    }

    @Test
    void shouldChooseTheEmulatedDeviceWhereNoGpuIsVisible()
    {
        if (!DeviceRuntime.availableKinds().contains(DeviceKind.CUDA))
        {
            try (DeviceRuntime automatic = DeviceRuntime.open(new DeviceContext().kind(null)
                .emulatedDeviceCount(2).emulatedMemoryBytes(256L << 20)))
            {
                assertEquals(DeviceKind.EMULATED, automatic.kind());
            }
        }
    }
}
