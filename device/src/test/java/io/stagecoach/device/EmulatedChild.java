package io.stagecoach.device;

import java.nio.file.Path;

/**
 * Opens emulated devices in a folder, allocates on each, says so and sleeps until killed:
 * {@code EmulatedChild FOLDER}.
 */
public final class EmulatedChild
{
    private EmulatedChild()
    {
    }

    public static void main(final String[] args) throws InterruptedException
    {
        final DeviceRuntime runtime = DeviceRuntime.open(new DeviceContext().kind(DeviceKind.EMULATED)
            .emulatedDirectory(Path.of(args[0])).emulatedDeviceCount(2).emulatedMemoryBytes(16L << 20));
        runtime.allocate(0, 4096);
        runtime.allocate(1, 4096);
        System.out.println("ready");
        System.out.flush();
        Thread.sleep(60_000);
    }
}
