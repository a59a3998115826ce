package io.stagecoach.device;

import java.util.concurrent.TimeUnit;

import io.stagecoach.device.pool.BufferPool;
import io.stagecoach.protocol.datatype.CompiledType;
import io.stagecoach.protocol.datatype.Datatype;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The default device on three emulated devices: the local rank modulo the device count, the ordinal setting over it,
 * its validation, and the calls without a device argument.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class DefaultDeviceTest
{
    private static final int DEVICES = 3;
    private static final String ORDINAL_PROPERTY = "stagecoach.device.ordinal";

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 2, 3, 4, 8})
    void shouldChooseTheLocalRankModuloTheDeviceCount(final int localRank)
    {
        try (DeviceRuntime runtime = DeviceRuntime.open(byLocalRank(localRank)))
        {
            assertEquals(localRank % DEVICES, runtime.defaultDevice());
            assertEquals("emulated device " + localRank % DEVICES, runtime.deviceName());
        }
    }

    @Test
    void shouldPreferTheDeviceOrdinalToTheLocalRank()
    {
        try (DeviceRuntime runtime = DeviceRuntime.open(emulated().localRank(1).deviceOrdinal(2)))
        {
            assertEquals(2, runtime.defaultDevice());
        }
    }

    @Test
    void shouldReadTheDeviceOrdinalFromItsSetting()
    {
        withOrdinalProperty("2", () ->
        {
            final DeviceContext context = emulated().localRank(1);
            assertEquals(2, context.deviceOrdinal());
            try (DeviceRuntime runtime = DeviceRuntime.open(context))
            {
                assertEquals(2, runtime.defaultDevice());
            }
        });
    }

    @Test
    void shouldRefuseAnOrdinalBeyondTheDevicesNamingItAndTheRange()
    {
        withOrdinalProperty("3", () ->
        {
            final IllegalArgumentException refused =
                assertThrows(IllegalArgumentException.class, () -> DeviceRuntime.open(emulated()));
            assertEquals("device ordinal 3 (stagecoach.device.ordinal) outside [0, 3): this process sees 3 EMULATED " +
                "device(s), numbered from 0", refused.getMessage());
        });
        final DeviceContext concluded = emulated().deviceOrdinal(7).conclude();
        assertEquals("device ordinal 7 (DeviceContext.deviceOrdinal) outside [0, 4): this process sees 4 device(s), " +
            "numbered from 0", assertThrows(IllegalArgumentException.class, () -> concluded.defaultDevice(4))
            .getMessage());
    }

    @ParameterizedTest
    @ValueSource(strings = {"first", "-1", "1.5"})
    void shouldRefuseAnOrdinalSettingThatIsNoOrdinal(final String value)
    {
        withOrdinalProperty(value, () -> assertEquals(
            ORDINAL_PROPERTY + "=" + value + " is not a device ordinal (an integer from 0)",
            assertThrows(IllegalArgumentException.class, DeviceContext::new).getMessage()));
    }

    @Test
    void shouldRefuseANegativeOrdinalOrLocalRankWhenConcluded()
    {
        assertEquals("device ordinal -2 (DeviceContext.deviceOrdinal) is negative", assertThrows(
            IllegalArgumentException.class, () -> emulated().deviceOrdinal(-2).conclude()).getMessage());
        assertEquals("local rank -3 (DeviceContext.localRank) is negative", assertThrows(
            IllegalArgumentException.class, () -> emulated().localRank(-3).conclude()).getMessage());
        assertThrows(IllegalStateException.class, () -> emulated().localRank(1).defaultDevice(DEVICES));
    }

    @Test
    void shouldSayWhyItChoseTheDevice()
    {
        assertEquals("local rank 4 (DeviceContext.localRank) modulo 3 device(s)",
            byLocalRank(4).conclude().defaultDeviceReason(DEVICES));
        assertEquals("ordinal from DeviceContext.deviceOrdinal",
            emulated().localRank(4).deviceOrdinal(0).conclude().defaultDeviceReason(DEVICES));
    }

    @Test
    void shouldReadTheLocalRankFromTheLauncherWhereTheProgramGivesNone()
    {
        final DeviceContext context = byLocalRank(DeviceContext.NO_LOCAL_RANK);
        assertEquals(DeviceContext.NO_LOCAL_RANK, context.localRank());
        assertEquals(LocalRank.fromEnvironment(System.getenv()).value(), context.conclude().localRank());
    }

    @Test
    void shouldDefaultEveryDeviceArgumentToTheDefaultDevice() throws Exception
    {
        final CompiledType type = Datatype.vector(16, 3, 8, Datatype.FLOAT).commit().compiled();
        final int typedBytes = 16 * 8 * 4;
        try (DeviceRuntime runtime = DeviceRuntime.open(byLocalRank(5));
            DeviceStream stream = runtime.createStream();
            DeviceEvent done = runtime.createEvent();
            Allocation typed = runtime.allocate(typedBytes);
            Allocation packed = runtime.allocate(type.size());
            BufferPool tbufs = BufferPool.openTbufs(runtime, 2, 1024))
        {
            final int device = runtime.defaultDevice();
            assertEquals(2, device);
            assertEquals(device, stream.device());
            assertEquals(device, done.device());
            assertEquals(device, typed.device());
            assertEquals(device, runtime.lookup(packed.address() + 1).device());
            assertEquals(device, tbufs.allocation().device());
            final DevicePacker packer = runtime.packer(type);
            assertEquals(device, packer.device());
            try (PackBatch batch = runtime.packBatch(PackJob.pack(packer, typed.address(), 1, 0, type.size(),
                packed.address())))
            {
                assertEquals(device, batch.device());
                assertPacksAsTheHost(runtime, stream, done, batch, type, typed, packed);
            }
        }
    }

    private static void assertPacksAsTheHost(
        final DeviceRuntime runtime,
        final DeviceStream stream,
        final DeviceEvent done,
        final PackBatch batch,
        final CompiledType type,
        final Allocation typed,
        final Allocation packed) throws Exception
    {
        final int typedBytes = (int)typed.lengthBytes();
        final int packedBytes = (int)type.size();
        final HostBuffer values = new HostBuffer(typedBytes);
        for (int i = 0; i < typedBytes; i++)
        {
            values.buffer().put(i, (byte)(i * 7 + 1));
        }
        final HostBuffer expected = new HostBuffer(packedBytes);
        type.pack(values.address(), 1, 0, packedBytes, expected.address());
        final HostBuffer result = new HostBuffer(packedBytes);
        stream.copy(typed.address(), values.address(), typedBytes);
        batch.launch(stream, done);
        runtime.whenComplete(done).get(10, TimeUnit.SECONDS);
        stream.copy(result.address(), packed.address(), packedBytes);
        stream.synchronize();
        assertArrayEquals(expected.get(packedBytes), result.get(packedBytes));
    }

    private static DeviceContext emulated()
    {
        return new DeviceContext().kind(DeviceKind.EMULATED).emulatedDeviceCount(DEVICES)
            .emulatedMemoryBytes(64L << 20);
    }

    private static DeviceContext byLocalRank(final int localRank)
    {
        return emulated().deviceOrdinal(DeviceContext.NO_DEVICE_ORDINAL).localRank(localRank);
    }

    private static void withOrdinalProperty(final String value, final Runnable check)
    {
        final String previous = System.getProperty(ORDINAL_PROPERTY);
        System.setProperty(ORDINAL_PROPERTY, value);
        try
        {
            check.run();
        }
        finally
        {
            if (previous == null)
            {
                System.clearProperty(ORDINAL_PROPERTY);
            }
            else
            {
                System.setProperty(ORDINAL_PROPERTY, previous);
            }
        }
    }
}
