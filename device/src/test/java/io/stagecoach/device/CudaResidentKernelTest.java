package io.stagecoach.device;

import java.util.ArrayList;
import java.util.List;

import io.stagecoach.device.cuda.CudaBackendProvider;
import io.stagecoach.protocol.datatype.CompiledType;
import io.stagecoach.protocol.datatype.Datatype;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The device contract on CUDA with resident pack kernels ({@link LaunchMode#RESIDENT}), and what is particular to
 * them: they take repeated calls with an event, stop around allocations and frees and start again, serve several
 * streams, and leave the calls they cannot take to launches; skipped where no GPU is visible.
 */
@Tag("gpu")
class CudaResidentKernelTest extends DeviceContractTest
{
    @Override
    protected DeviceRuntime openRuntime()
    {
        final String reason = CudaBackendProvider.unavailableReason();
        Assumptions.assumeTrue(reason == null, () -> "CUDA unavailable: " + reason);
        return DeviceRuntime.open(new DeviceContext().kind(DeviceKind.CUDA).launchMode(LaunchMode.RESIDENT)
            .residentRelay(Boolean.getBoolean("stagecoach.test.residentRelay")));
    }

    @Override
    protected int randomTypeCount()
    {
        return 100;
    }

    @Test
    void shouldPackRepeatedCallsWithAnEventInTheResidentKernel()
    {
        final int n = 64;
        final RandomTypes random = new RandomTypes(RandomTypes.seed("resident faces"));
        try (Allocation array = runtime.allocate(0, 4L * n * n * n);
            Allocation packed = runtime.allocate(0, 4L * n * n);
            Allocation pinned = runtime.allocatePinned(4L * n * n);
            DeviceEvent done = runtime.createEvent(0))
        {
            final byte[] values = new byte[4 * n * n * n];
            random.nextBytes(values);
            upload(array.address(), values);
            for (final Datatype face : faces(n))
            {
                final CompiledType type = face.commit().compiled();
                final DevicePacker packer = runtime.packer(type, 0);
                final int size = (int)type.size();
                final byte[] expected = hostPackOf(type, values, size);
                for (final long target : new long[] {packed.address(), pinned.address()})
                {
                    final long before = runtime.residentJobs();
                    for (int repeat = 0; repeat < 50; repeat++)
                    {
                        fill(target, POISON, size);
                        packer.pack(stream, array.address(), 1, 0, size, target, done);
                        spin(done);
                        assertArrayEquals(expected, download(target, size), face + " repeat " + repeat);
                    }
                    assertTrue(runtime.residentJobs() - before >= 45, face + ": only " +
                        (runtime.residentJobs() - before) + " of 50 calls went to the resident kernel");
                }
            }
        }
    }

    @Test
    void shouldStartAgainAfterAllocationsAndFreesAndServeSeveralStreams()
    {
        final CompiledType type = Datatype.vector(4096, 3, 7, Datatype.INT).commit().compiled();
        final int size = (int)type.size();
        final int typedBytes = (int)type.dataHighBytes(1);
        final byte[] values = new byte[typedBytes];
        new RandomTypes(RandomTypes.seed("resident restarts")).nextBytes(values);
        final byte[] expected = hostPackOf(type, values, size);
        final DevicePacker packer = runtime.packer(type, 0);
        final List<DeviceStream> streams = new ArrayList<>();
        try (Allocation typed = runtime.allocate(0, typedBytes);
            DeviceEvent done = runtime.createEvent(0))
        {
            upload(typed.address(), values);
            for (int s = 0; s < 3; s++)
            {
                streams.add(runtime.createStream(0));
            }
            final long before = runtime.residentJobs();
            for (int round = 0; round < 20; round++)
            {
                try (Allocation packed = runtime.allocate(0, size))
                {
                    for (final DeviceStream each : streams)
                    {
                        for (int repeat = 0; repeat < 3; repeat++)
                        {
                            packer.pack(each, typed.address(), 1, 0, size, packed.address(), done);
                            spin(done);
                        }
                    }
                    assertArrayEquals(expected, download(packed.address(), size), "round " + round);
                }
            }
            final long jobs = runtime.residentJobs() - before;
            assertTrue(jobs >= 20 * 2 * 2, "only " + jobs + " calls went to resident kernels");
        }
        finally
        {
            streams.forEach(DeviceStream::close);
        }
        assertEquals(size, expected.length);
    }

    private static void spin(final DeviceEvent event)
    {
        final long deadline = System.nanoTime() + 30_000_000_000L;
        while (!event.isComplete())
        {
            if (System.nanoTime() > deadline)
            {
                throw new AssertionError("event did not complete within 30 s");
            }
            Thread.onSpinWait();
        }
    }

    private static byte[] hostPackOf(final CompiledType type, final byte[] values, final int size)
    {
        final HostBuffer typed = new HostBuffer(values.length);
        typed.put(values);
        final HostBuffer packed = new HostBuffer(size);
        type.pack(typed.address(), 1, 0, size, packed.address());
        return packed.get(size);
    }
}
