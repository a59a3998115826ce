package io.stagecoach.device;

/**
 * The copy between two layouts on the emulated back end.
 */
class EmulatedTranscoderTest extends DeviceTranscoderContractTest
{
    @Override
    protected DeviceRuntime openRuntime()
    {
        return DeviceRuntime.open(EmulatedDeviceTest.emulatedContext());
    }
}
