package io.stagecoach.device;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Kernel modules on the emulated device, which runs the Java twins, and the arguments and shapes of a launch.
 */
class EmulatedKernelModuleTest extends KernelModuleContractTest
{
    @Override
    protected DeviceRuntime openRuntime()
    {
        return DeviceRuntime.open(EmulatedDeviceTest.emulatedContext());
    }

    @Test
    void shouldFailTheStreamWhenAJavaTwinThrows()
    {
        final KernelSource failing = KernelSource.named("failing").emulated("boom", arguments ->
        {
            throw new IllegalStateException("boom at " + arguments.intAt(0));
        });
        try (KernelModule module = runtime.loadModule(0, failing);
            DeviceStream stream = runtime.createStream(0))
        {
            module.kernel("boom").launch(stream, LaunchShape.linear(1, 1), new KernelArguments().i32(7));
            final DeviceException ex = assertThrows(DeviceException.class, stream::synchronize);
            assertTrue(ex.getMessage().contains("boom at 7"), ex.getMessage());
        }
    }

    @Test
    void shouldNameTheKernelsThatHaveATwin()
    {
        try (KernelModule module = runtime.loadModule(0, source()))
        {
            final DeviceException ex = assertThrows(DeviceException.class, () -> module.kernel("sc_test_other"));
            assertEquals("kernel module module-test has no Java body for kernel sc_test_other, which the emulated " +
                "device needs (it has [sc_test_axpb])", ex.getMessage());
        }
    }

    @Test
    void shouldReadEachArgumentAsTheKindItWasGiven()
    {
        final KernelArguments arguments = new KernelArguments().address(0x1000).i32(-3).i64(-1L << 40).f32(0.5f)
            .f64(-2.25);
        final KernelArguments copy = arguments.copy();
        arguments.clear().i32(99);

        assertEquals(5, copy.count());
        assertEquals(0x1000, copy.longAt(0));
        assertEquals(-3, copy.intAt(1));
        assertEquals(-1L << 40, copy.longAt(2));
        assertEquals(0.5f, copy.floatAt(3));
        assertEquals(-2.25, copy.doubleAt(4));
        assertEquals("(0x1000, -3, -1099511627776L, 0.5f, -2.25)", copy.toString());
        assertEquals("argument 1 is -3, not of kind f", assertThrows(IllegalArgumentException.class,
            () -> copy.floatAt(1)).getMessage());
        assertThrows(IndexOutOfBoundsException.class, () -> copy.intAt(5));
        assertThrows(IllegalStateException.class, () -> copy.i32(1));
        assertThrows(IllegalStateException.class, copy::parameterArrayAddress);
        assertEquals(1, arguments.count());
    }

    @Test
    void shouldRefuseMoreArgumentsThanALaunchTakes()
    {
        final KernelArguments arguments = new KernelArguments();
        for (int i = 0; i < KernelArguments.MAX_ARGUMENTS; i++)
        {
            arguments.i32(i);
        }
        assertEquals("a kernel takes at most 48 arguments here",
            assertThrows(IllegalArgumentException.class, () -> arguments.i32(0)).getMessage());
    }

    @Test
    void shouldShapeALinearLaunchAndRefuseImpossibleOnes()
    {
        final LaunchShape shape = LaunchShape.linear(1_000, 256);
        assertEquals(new LaunchShape(4, 1, 1, 256, 1, 1), shape);
        assertEquals(1_024, shape.threads());
        assertEquals("block of 32 x 32 x 2 threads exceeds 1024", assertThrows(IllegalArgumentException.class,
            () -> new LaunchShape(1, 1, 1, 32, 32, 2)).getMessage());
        assertEquals("gridY 65536 outside [1, 65535]", assertThrows(IllegalArgumentException.class,
            () -> new LaunchShape(1, 65_536, 1, 1, 1, 1)).getMessage());
        assertEquals("launch of 0 threads: at least one is needed", assertThrows(IllegalArgumentException.class,
            () -> LaunchShape.linear(0, 256)).getMessage());
    }
}
