package io.stagecoach.device.emulated;

import io.stagecoach.device.DeviceBackend;
import io.stagecoach.device.DeviceBackendProvider;
import io.stagecoach.device.DeviceContext;
import io.stagecoach.device.DeviceKind;

/**
 * Opens the emulated device, which runs anywhere.
 */
public final class EmulatedBackendProvider implements DeviceBackendProvider
{
    @Override
    public DeviceKind kind()
    {
        return DeviceKind.EMULATED;
    }

    @Override
    public boolean isAvailable()
    {
        return true;
    }

    @Override
    public DeviceBackend open(final DeviceContext context)
    {
        return new EmulatedBackend(context);
    }
}
