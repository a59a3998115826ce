package io.stagecoach.device;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.stagecoach.protocol.datatype.CompiledType;
import io.stagecoach.protocol.datatype.Datatype;
import io.stagecoach.protocol.datatype.Order;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The contract every back end meets, run against each: memory and its detection, errors on misuse, copies, streams,
 * events and their completion, pack and unpack checked byte for byte against the datatype engine's host pack over
 * random datatypes and byte ranges, and the halo faces of a 3D array.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
public abstract class DeviceContractTest
{
    protected static final byte POISON = (byte)0xA5;

    protected DeviceRuntime runtime;
    protected DeviceStream stream;

    /**
     * @return a runtime of the back end under test (skip with an assumption when it cannot run here).
     */
    protected abstract DeviceRuntime openRuntime();

    /**
     * @return random datatypes per byte-for-byte test.
     */
    protected int randomTypeCount()
    {
        return 150;
    }

    @BeforeAll
    void openRuntimeAndStream()
    {
        runtime = openRuntime();
        stream = runtime.createStream(0);
    }

    @AfterAll
    void closeRuntime()
    {
        if (runtime != null)
        {
            runtime.close();
        }
    }

    @Test
    public void shouldDetectDeviceMemoryAndItsRange()
    {
        try (Allocation memory = runtime.allocate(0, 10_000))
        {
            final MemoryRegion region = runtime.lookup(memory.address() + 9_999);
            assertEquals(MemoryType.DEVICE, region.type());
            assertEquals(0, region.device());
            assertEquals(memory.address(), region.startAddress());
            assertEquals(10_000, region.lengthBytes());
            assertEquals(MemoryType.DEVICE, memory.type());
        }
    }

    @Test
    public void shouldDetectPinnedAndRegisteredHostMemory()
    {
        final HostBuffer host = new HostBuffer(1 << 16);
        try (Allocation pinned = runtime.allocatePinned(4096);
            Allocation registered = runtime.register(host.address(), 1 << 16))
        {
            assertEquals(MemoryType.REGISTERED_HOST, registered.type());
            assertEquals(MemoryType.PINNED_HOST, runtime.lookup(pinned.address() + 100).type());
            assertEquals(MemoryType.REGISTERED_HOST, runtime.lookup(host.address() + 100).type());
            assertTrue(runtime.lookup(pinned.address()).type().isDeviceAccessible());
        }
        assertEquals(MemoryType.HOST, runtime.lookup(host.address() + 100).type());
    }

    /**
     * A read-only mapping of a file (a same-node peer's shared arena as a receiver maps it) registers with the device,
     * and a copy to device memory reads it in place.
     */
    @Test
    public void shouldRegisterAReadOnlyMappingAndCopyOutOfIt() throws Exception
    {
        final int length = 1 << 16;
        final java.nio.file.Path file = java.nio.file.Files.createTempFile("stagecoach-contract", ".bin");
        try
        {
            final byte[] bytes = new byte[length];
            for (int i = 0; i < length; i++)
            {
                bytes[i] = (byte)(i * 13 + 7);
            }
            java.nio.file.Files.write(file, bytes);
            final java.nio.MappedByteBuffer mapping;
            try (java.nio.channels.FileChannel channel = java.nio.channels.FileChannel.open(file))
            {
                mapping = channel.map(java.nio.channels.FileChannel.MapMode.READ_ONLY, 0, length);
            }
            final long address = org.agrona.BufferUtil.address(mapping);
            final HostBuffer back = new HostBuffer(length);
            try (Allocation registered = runtime.register(address, length);
                Allocation device = runtime.allocate(0, length))
            {
                assertEquals(MemoryType.REGISTERED_HOST, registered.type());
                assertEquals(MemoryType.REGISTERED_HOST, runtime.lookup(address + 100).type());
                stream.copy(device.address(), address, length);
                stream.copy(back.address(), device.address(), length);
                stream.synchronize();
                for (int i = 0; i < length; i++)
                {
                    assertEquals(bytes[i], org.agrona.UnsafeApi.getByte(back.address() + i), "byte " + i);
                }
            }
            org.agrona.IoUtil.unmap(mapping);
        }
        finally
        {
            java.nio.file.Files.deleteIfExists(file);
        }
    }

    @Test
    public void shouldReportPageableHostMemory()
    {
        final HostBuffer host = new HostBuffer(4096);
        assertEquals(MemoryRegion.PAGEABLE_HOST, runtime.lookup(host.address()));
        assertEquals(MemoryType.HOST, runtime.lookup(host.address() + 17).type());
    }

    @Test
    public void shouldAskTheDriverOncePerForeignAllocation()
    {
        try (DeviceRuntime other = DeviceRuntime.open(new DeviceContext().kind(runtime.kind())
            .emulatedDirectory(runtime.context().emulatedDirectory())
            .emulatedDeviceCount(runtime.context().emulatedDeviceCount())
            .emulatedMemoryBytes(runtime.context().emulatedMemoryBytes()));
            Allocation foreign = other.allocate(0, 1 << 20))
        {
            final long before = runtime.driverQueryCount();
            final MemoryRegion first = runtime.lookup(foreign.address() + 5);
            final MemoryRegion second = runtime.lookup(foreign.address() + (1 << 19));
            assertEquals(MemoryType.DEVICE, first.type());
            assertSame(first, second);
            assertEquals(before + 1, runtime.driverQueryCount());
            runtime.forget(foreign.address());
            runtime.lookup(foreign.address());
            assertEquals(before + 2, runtime.driverQueryCount());
            runtime.forget(foreign.address());
        }
    }

    @Test
    public void shouldNameADoubleFree()
    {
        final Allocation memory = runtime.allocate(0, 4096);
        final long address = memory.address();
        memory.free();
        assertTrue(assertThrows(DeviceException.class, memory::free).getMessage().contains("double free"));
        assertTrue(assertThrows(DeviceException.class, () -> runtime.free(address)).getMessage()
            .contains("double free"));
    }

    @Test
    public void shouldNameAUseAfterFree()
    {
        final Allocation memory = runtime.allocate(0, 4096);
        final Allocation other = runtime.allocate(0, 4096);
        final long address = memory.address();
        memory.free();
        final DeviceException copy = assertThrows(DeviceException.class,
            () -> stream.copy(other.address(), address + 8, 64));
        assertTrue(copy.getMessage().contains("freed"), copy.getMessage());
        assertThrows(DeviceException.class, () -> runtime.lookup(address));
        other.free();
    }

    @Test
    public void shouldNameAFreeOfNoAllocation()
    {
        try (Allocation memory = runtime.allocate(0, 4096))
        {
            final DeviceException error = assertThrows(DeviceException.class, () -> runtime.free(memory.address() + 8));
            assertTrue(error.getMessage().contains("not the start of an allocation"), error.getMessage());
        }
    }

    @Test
    public void shouldNameACopyOutOfRange()
    {
        try (Allocation a = runtime.allocate(0, 4096); Allocation b = runtime.allocate(0, 8192))
        {
            final DeviceException error = assertThrows(DeviceException.class,
                () -> stream.copy(b.address(), a.address() + 100, 4000));
            assertTrue(error.getMessage().contains("overruns"), error.getMessage());
            assertTrue(error.getMessage().contains("by 4 bytes"), error.getMessage());
        }
    }

    @Test
    public void shouldNameAKernelArgumentInNoDeviceAccessibleAllocation()
    {
        final HostBuffer host = new HostBuffer(4096);
        final DevicePacker packer = runtime.packer(Datatype.vector(4, 1, 2, Datatype.INT).commit().compiled(), 0);
        try (Allocation packed = runtime.allocate(0, 4096))
        {
            final DeviceException error = assertThrows(DeviceException.class,
                () -> packer.pack(stream, host.address(), 1, 0, 16, packed.address()));
            assertTrue(error.getMessage().contains("no device-accessible allocation"), error.getMessage());
        }
    }

    @Test
    public void shouldNameAPackedRangeBeyondTheStream()
    {
        final DevicePacker packer = runtime.packer(Datatype.vector(4, 1, 2, Datatype.INT).commit().compiled(), 0);
        try (Allocation typed = runtime.allocate(0, 4096); Allocation packed = runtime.allocate(0, 4096))
        {
            final IllegalArgumentException error = assertThrows(IllegalArgumentException.class,
                () -> packer.pack(stream, typed.address(), 2, 16, 17, packed.address()));
            assertTrue(error.getMessage().contains("exceeds the 32 packed bytes"), error.getMessage());
        }
    }

    @Test
    public void shouldNameAPackFootprintBeyondTheAllocation()
    {
        final DevicePacker packer = runtime.packer(Datatype.vector(64, 1, 2, Datatype.INT).commit().compiled(), 0);
        try (Allocation typed = runtime.allocate(0, 256); Allocation packed = runtime.allocate(0, 4096))
        {
            final DeviceException error = assertThrows(DeviceException.class,
                () -> packer.pack(stream, typed.address(), 1, 0, 256, packed.address()));
            assertTrue(error.getMessage().contains("overruns"), error.getMessage());
        }
    }

    @Test
    public void shouldNameAnAllocationTooLarge()
    {
        final DeviceException error = assertThrows(DeviceException.class, () -> runtime.allocate(0, 1L << 50));
        assertTrue(error.getMessage().toLowerCase().replace('_', ' ').contains("out of memory"), error.getMessage());
    }

    @Test
    public void shouldCopyBetweenHostAndDeviceInEveryDirection()
    {
        final RandomTypes random = new RandomTypes(RandomTypes.seed("copies"));
        final int length = (4 << 20) + 20;
        final byte[] data = new byte[length];
        random.nextBytes(data);
        final HostBuffer pageable = new HostBuffer(length);
        pageable.put(data);
        try (Allocation pinned = runtime.allocatePinned(length);
            Allocation deviceA = runtime.allocate(0, length);
            Allocation deviceB = runtime.allocate(runtime.deviceCount() - 1, length))
        {
            fill(pinned.address(), POISON, length);
            stream.copy(deviceA.address(), pageable.address(), length);
            stream.copy(deviceB.address(), deviceA.address(), length);
            stream.copy(pinned.address(), deviceB.address(), length);
            stream.synchronize();
            assertArrayEquals(data, read(pinned.address(), length));
            final HostBuffer back = new HostBuffer(length);
            back.fill(POISON, length);
            stream.copy(deviceA.address() + 7, pinned.address() + 3, 1000);
            stream.copy(back.address(), deviceA.address(), length);
            stream.synchronize();
            final byte[] expected = data.clone();
            System.arraycopy(data, 3, expected, 7, 1000);
            assertArrayEquals(expected, back.get(length));
        }
    }

    @Test
    public void shouldCompleteEventsInStreamOrderThroughTheCompletionAgent() throws InterruptedException
    {
        final int events = 40;
        final List<Long> order = Collections.synchronizedList(new ArrayList<>());
        final List<String> threads = Collections.synchronizedList(new ArrayList<>());
        final CountDownLatch done = new CountDownLatch(events);
        final List<DeviceEvent> created = new ArrayList<>();
        try (Allocation a = runtime.allocate(0, 1 << 20); Allocation b = runtime.allocate(0, 1 << 20))
        {
            for (int i = 0; i < events; i++)
            {
                final DeviceEvent event = runtime.createEvent(0);
                created.add(event);
                stream.copy(i % 2 == 0 ? b.address() : a.address(), i % 2 == 0 ? a.address() : b.address(), 1 << 20);
                event.record(stream);
                runtime.onComplete(event, (completed, token, error) ->
                {
                    if (error == null)
                    {
                        order.add(token);
                        threads.add(Thread.currentThread().getName());
                    }
                    done.countDown();
                }, i);
            }
            assertTrue(done.await(30, TimeUnit.SECONDS), "completions delivered: " + order.size() + " of " + events);
        }
        final List<Long> sorted = new ArrayList<>(order);
        Collections.sort(sorted);
        assertEquals(sorted, order);
        assertEquals(events, order.size());
        assertNotEquals(Thread.currentThread().getName(), threads.get(0));
        created.forEach(DeviceEvent::close);
    }

    @Test
    public void shouldCompleteAFutureWhenTheEventCompletes() throws Exception
    {
        try (DeviceEvent event = runtime.createEvent(0); Allocation a = runtime.allocate(0, 1 << 16);
            Allocation b = runtime.allocate(0, 1 << 16))
        {
            stream.copy(b.address(), a.address(), 1 << 16);
            event.record(stream);
            final CompletableFuture<DeviceEvent> future = runtime.whenComplete(event);
            assertSame(event, future.get(30, TimeUnit.SECONDS));
            assertTrue(event.isComplete());
            event.synchronize();
        }
        try (DeviceRuntime polled = DeviceRuntime.open(new DeviceContext().kind(runtime.kind())
                .emulatedDirectory(runtime.context().emulatedDirectory())
                .emulatedDeviceCount(runtime.context().emulatedDeviceCount())
                .emulatedMemoryBytes(runtime.context().emulatedMemoryBytes())
                .completionThread(false));
            DeviceStream polledStream = polled.createStream(0);
            DeviceEvent polledEvent = polled.createEvent(0))
        {
            polledEvent.record(polledStream);
            final CompletableFuture<DeviceEvent> first = polled.whenComplete(polledEvent);
            assertThrows(IllegalStateException.class, () -> polled.whenComplete(polledEvent));
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!first.isDone() && System.nanoTime() < deadline)
            {
                polled.pollCompletions();
            }
            assertSame(polledEvent, first.get(0, TimeUnit.SECONDS));
        }
    }

    @Test
    public void shouldOrderWorkAcrossStreamsWithEvents()
    {
        final int length = 1 << 20;
        final byte[] data = new byte[length];
        new RandomTypes(RandomTypes.seed("cross-stream")).nextBytes(data);
        try (DeviceStream second = runtime.createStream(0);
            DeviceEvent copied = runtime.createEvent(0);
            Allocation pinned = runtime.allocatePinned(length);
            Allocation a = runtime.allocate(0, length);
            Allocation b = runtime.allocate(0, length))
        {
            write(pinned.address(), data);
            stream.copy(a.address(), pinned.address(), length);
            copied.record(stream);
            second.waitFor(copied);
            second.copy(b.address(), a.address(), length);
            fill(pinned.address(), POISON, length);
            second.synchronize();
            second.copy(pinned.address(), b.address(), length);
            second.synchronize();
            assertArrayEquals(data, read(pinned.address(), length));
        }
    }

    @Test
    public void shouldBuildOnePackerPerDatatypeAndDevice()
    {
        final CompiledType type = Datatype.vector(3, 2, 5, Datatype.DOUBLE).commit().compiled();
        assertSame(runtime.packer(type, 0), runtime.packer(type, 0));
    }

    @Test
    public void shouldPackRandomDatatypesAndRangesByteForByte()
    {
        final RandomTypes random = new RandomTypes(RandomTypes.seed("pack"));
        for (int t = 0; t < randomTypeCount(); t++)
        {
            final Datatype type = random.next();
            final long count = 1 + random.nextInt(4);
            checkPack(random, type, count, false);
        }
    }

    @Test
    public void shouldUnpackRandomDatatypesAndRangesByteForByte()
    {
        final RandomTypes random = new RandomTypes(RandomTypes.seed("unpack"));
        int checked = 0;
        for (int t = 0; t < randomTypeCount(); t++)
        {
            final Datatype type = random.next();
            final long count = 1 + random.nextInt(4);
            if (RandomTypes.isNonOverlapping(type.compiled(), count))
            {
                checkUnpack(random, type, count, false);
                checked++;
            }
        }
        assertTrue(checked > randomTypeCount() / 2, "only " + checked + " types without overlap");
    }

    @Test
    public void shouldPackStraightIntoPinnedHostMemory()
    {
        final RandomTypes random = new RandomTypes(RandomTypes.seed("pack to pinned"));
        for (int t = 0; t < randomTypeCount() / 5; t++)
        {
            checkPack(random, random.next(), 1 + random.nextInt(3), true);
        }
    }

    @Test
    public void shouldUnpackStraightFromPinnedHostMemory()
    {
        final RandomTypes random = new RandomTypes(RandomTypes.seed("unpack from pinned"));
        for (int t = 0; t < randomTypeCount() / 5; t++)
        {
            final Datatype type = random.next();
            if (RandomTypes.isNonOverlapping(type.compiled(), 2))
            {
                checkUnpack(random, type, 2, true);
            }
        }
    }

    @Test
    public void shouldPackAndUnpackHaloFacesOfA3dArray()
    {
        final RandomTypes random = new RandomTypes(RandomTypes.seed("faces"));
        final int n = 48;
        for (final Datatype face : faces(n))
        {
            final CompiledType compiled = face.commit().compiled();
            final long arrayBytes = (long)n * n * n * 4;
            try (Allocation array = runtime.allocate(0, arrayBytes);
                Allocation packed = runtime.allocate(0, compiled.size() + 64))
            {
                final byte[] values = new byte[(int)arrayBytes];
                random.nextBytes(values);
                upload(array.address(), values);
                final DevicePacker packer = runtime.packer(compiled, 0);
                for (int repeat = 0; repeat < 3; repeat++)
                {
                    fill(packed.address(), POISON, (int)compiled.size() + 64);
                    packer.pack(stream, array.address(), 1, 0, compiled.size(), packed.address());
                    stream.synchronize();
                    assertArrayEquals(hostPack(compiled, values, 0, 1, 0, compiled.size(), 64),
                        download(packed.address(), (int)compiled.size() + 64), face + " repeat " + repeat);
                }
                final byte[] incoming = new byte[(int)compiled.size()];
                random.nextBytes(incoming);
                upload(packed.address(), incoming);
                packer.unpack(stream, packed.address(), 1, 0, compiled.size(), array.address());
                stream.synchronize();
                assertArrayEquals(hostUnpackRange(compiled, values, 0, 1, 0, incoming),
                    download(array.address(), (int)arrayBytes), face.toString());
            }
        }
    }

    @Test
    public void shouldPackAndUnpackABatchOfFacesAsEachAloneInOneLaunch()
    {
        final RandomTypes random = new RandomTypes(RandomTypes.seed("batch"));
        final int n = 48;
        final List<CompiledType> types = new ArrayList<>();
        faces(n).forEach(face -> types.add(face.commit().compiled()));
        final long arrayBytes = 4L * n * n * n;
        final int slot = 4 * n * n + 64;
        try (Allocation array = runtime.allocate(0, arrayBytes);
            Allocation packed = runtime.allocate(0, 2L * types.size() * slot);
            DeviceEvent done = runtime.createEvent(0))
        {
            final byte[] values = new byte[(int)arrayBytes];
            random.nextBytes(values);
            upload(array.address(), values);
            final List<PackJob> jobs = new ArrayList<>();
            final List<long[]> ranges = new ArrayList<>();
            for (final CompiledType type : types)
            {
                final long offset = random.nextInt((int)type.size() / 2);
                final long length = 1 + random.nextInt((int)(type.size() - offset));
                ranges.add(new long[] {0, type.size()});
                ranges.add(new long[] {offset, length});
                final DevicePacker packer = runtime.packer(type, 0);
                jobs.add(PackJob.pack(packer, array.address(), 1, 0, type.size(), packed.address() +
                    (long)(jobs.size()) * slot));
                jobs.add(PackJob.pack(packer, array.address(), 1, offset, length, packed.address() +
                    (long)(jobs.size()) * slot));
            }
            try (PackBatch batch = runtime.packBatch(0, jobs.toArray(new PackJob[0])))
            {
                assertEquals(2 * types.size(), batch.jobs());
                for (int repeat = 0; repeat < 3; repeat++)
                {
                    fill(packed.address(), POISON, (int)(2L * types.size() * slot));
                    batch.launch(stream, done);
                    awaitPolling(done);
                    for (int j = 0; j < jobs.size(); j++)
                    {
                        final long[] range = ranges.get(j);
                        assertArrayEquals(hostPack(types.get(j / 2), values, 0, 1, range[0], range[1], 64),
                            download(packed.address() + (long)j * slot, (int)range[1] + 64),
                            "job " + j + " repeat " + repeat);
                    }
                }
            }
        }
    }

    @Test
    public void shouldUnpackABatchIntoSeparateArraysAsEachAlone()
    {
        final RandomTypes random = new RandomTypes(RandomTypes.seed("unpack batch"));
        final int n = 40;
        final List<CompiledType> types = new ArrayList<>();
        faces(n).forEach(face -> types.add(face.commit().compiled()));
        final long[] offsets = new long[types.size() + 1];
        for (int f = 0; f < types.size(); f++)
        {
            offsets[f + 1] = offsets[f] + types.get(f).size();
        }
        final long arrayBytes = 4L * n * n * n;
        final List<Allocation> arrays = new ArrayList<>();
        try (Allocation packed = runtime.allocate(0, offsets[types.size()]);
            DeviceEvent done = runtime.createEvent(0))
        {
            final byte[] values = new byte[(int)arrayBytes];
            random.nextBytes(values);
            final byte[] incoming = new byte[(int)offsets[types.size()]];
            random.nextBytes(incoming);
            upload(packed.address(), incoming);
            final PackJob[] jobs = new PackJob[types.size()];
            for (int f = 0; f < types.size(); f++)
            {
                final Allocation array = runtime.allocate(0, arrayBytes);
                arrays.add(array);
                upload(array.address(), values);
                jobs[f] = PackJob.unpack(runtime.packer(types.get(f), 0), packed.address() + offsets[f], 1, 0,
                    types.get(f).size(), array.address());
            }
            try (PackBatch batch = runtime.packBatch(0, jobs))
            {
                batch.launch(stream, done);
                awaitPolling(done);
            }
            for (int f = 0; f < types.size(); f++)
            {
                final byte[] faceBytes = Arrays.copyOfRange(incoming, (int)offsets[f], (int)offsets[f + 1]);
                assertArrayEquals(hostUnpackRange(types.get(f), values, 0, 1, 0, faceBytes),
                    download(arrays.get(f).address(), (int)arrayBytes), "face " + f);
            }
        }
        finally
        {
            arrays.forEach(Allocation::close);
        }
    }

    @Test
    public void shouldNameTheBatchJobThatIsWrongAndRefuseALaunchAfterClose()
    {
        final DevicePacker packer = runtime.packer(Datatype.vector(4, 1, 2, Datatype.INT).commit().compiled(), 0);
        final HostBuffer host = new HostBuffer(4096);
        try (Allocation typed = runtime.allocate(0, 4096); Allocation packed = runtime.allocate(0, 4096);
            DeviceEvent done = runtime.createEvent(0))
        {
            final IllegalArgumentException none =
                assertThrows(IllegalArgumentException.class, () -> runtime.packBatch(0));
            assertTrue(none.getMessage().contains("at least one job"), none.getMessage());
            final DeviceException outside = assertThrows(DeviceException.class, () -> runtime.packBatch(0,
                PackJob.pack(packer, typed.address(), 1, 0, 16, packed.address()),
                PackJob.pack(packer, host.address(), 1, 0, 16, packed.address() + 64)));
            assertTrue(outside.getMessage().contains("job 1") &&
                outside.getMessage().contains("no device-accessible allocation"), outside.getMessage());
            final IllegalArgumentException beyond = assertThrows(IllegalArgumentException.class,
                () -> runtime.packBatch(0, PackJob.pack(packer, typed.address(), 2, 16, 17, packed.address())));
            assertTrue(beyond.getMessage().contains("exceeds the 32 packed bytes"), beyond.getMessage());
            final PackBatch batch =
                runtime.packBatch(0, PackJob.pack(packer, typed.address(), 1, 0, 16, packed.address()));
            batch.close();
            final IllegalStateException closed =
                assertThrows(IllegalStateException.class, () -> batch.launch(stream, done));
            assertTrue(closed.getMessage().contains("closed"), closed.getMessage());
        }
    }

    @Test
    public void shouldPackAndUnpackWithACompletionEventRepeatedly()
    {
        final RandomTypes random = new RandomTypes(RandomTypes.seed("pack with event"));
        final int n = 40;
        try (Allocation array = runtime.allocate(0, 4L * n * n * n);
            Allocation packed = runtime.allocate(0, 4L * n * n + 64);
            Allocation pinned = runtime.allocatePinned(4L * n * n + 64);
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
                for (int repeat = 0; repeat < 4; repeat++)
                {
                    final long target = repeat % 2 == 0 ? packed.address() : pinned.address();
                    fill(target, POISON, size + 64);
                    packer.pack(stream, array.address(), 1, 0, size, target, done);
                    awaitPolling(done);
                    assertArrayEquals(hostPack(type, values, 0, 1, 0, size, 64), download(target, size + 64),
                        face + " repeat " + repeat);
                }
                final byte[] incoming = new byte[size];
                random.nextBytes(incoming);
                upload(packed.address(), incoming);
                final byte[] before = download(array.address(), values.length);
                for (int repeat = 0; repeat < 3; repeat++)
                {
                    packer.unpack(stream, packed.address(), 1, 0, size, array.address(), done);
                    awaitPolling(done);
                }
                assertArrayEquals(hostUnpackRange(type, before, 0, 1, 0, incoming),
                    download(array.address(), values.length), face.toString());
                upload(array.address(), values);
            }
        }
    }

    @Test
    public void shouldKeepStreamOrderAroundPacksThatSignalTheirEvent()
    {
        final RandomTypes random = new RandomTypes(RandomTypes.seed("stream order with events"));
        final int n = 32;
        final int arrayBytes = 4 * n * n * n;
        final CompiledType type = Datatype.vector(n * n, 1, n, Datatype.FLOAT).commit().compiled();
        final int size = (int)type.size();
        final DevicePacker packer = runtime.packer(type, 0);
        try (Allocation array = runtime.allocate(0, arrayBytes);
            Allocation packed = runtime.allocate(0, size);
            Allocation source = runtime.allocatePinned(arrayBytes);
            Allocation back = runtime.allocatePinned(arrayBytes);
            DeviceEvent done = runtime.createEvent(0))
        {
            final byte[] values = new byte[arrayBytes];
            for (int round = 0; round < 8; round++)
            {
                random.nextBytes(values);
                write(source.address(), values);
                fill(back.address(), POISON, size);
                stream.copy(array.address(), source.address(), arrayBytes);
                if (round % 2 == 0)
                {
                    stream.synchronize();
                }
                packer.pack(stream, array.address(), 1, 0, size, packed.address(), done);
                stream.copy(back.address(), packed.address(), size);
                stream.synchronize();
                assertTrue(done.isComplete());
                assertArrayEquals(hostPack(type, values, 0, 1, 0, size, 0), read(back.address(), size),
                    "pack round " + round);

                final byte[] incoming = new byte[size];
                random.nextBytes(incoming);
                write(source.address(), incoming);
                stream.copy(packed.address(), source.address(), size);
                if (round % 2 == 1)
                {
                    stream.synchronize();
                }
                packer.unpack(stream, packed.address(), 1, 0, size, array.address(), done);
                stream.copy(back.address(), array.address(), arrayBytes);
                stream.synchronize();
                assertArrayEquals(hostUnpackRange(type, values, 0, 1, 0, incoming), read(back.address(), arrayBytes),
                    "unpack round " + round);
            }
        }
    }

    @Test
    public void shouldPackOnEveryDeviceAndCopyBetweenDevices()
    {
        final CompiledType type = Datatype.vector(64, 3, 7, Datatype.FLOAT).commit().compiled();
        final int typedBytes = (int)type.dataHighBytes(2);
        final byte[] values = new byte[typedBytes];
        new RandomTypes(RandomTypes.seed("every device")).nextBytes(values);
        final byte[] expected = hostPack(type, values, 0, 2, 0, 2 * type.size(), 0);
        byte[] previous = null;
        for (int device = 0; device < runtime.deviceCount(); device++)
        {
            try (DeviceStream local = runtime.createStream(device);
                DeviceEvent done = runtime.createEvent(device);
                Allocation typed = runtime.allocate(device, typedBytes);
                Allocation packed = runtime.allocate(device, 2 * type.size());
                Allocation onDeviceZero = runtime.allocate(0, 2 * type.size()))
            {
                assertEquals(device, runtime.lookup(typed.address()).device());
                upload(typed.address(), values);
                fill(packed.address(), POISON, (int)(2 * type.size()));
                runtime.packer(type, device).pack(local, typed.address(), 2, 0, 2 * type.size(), packed.address(),
                    done);
                done.synchronize();
                local.copy(onDeviceZero.address(), packed.address(), 2 * type.size());
                local.synchronize();
                final byte[] actual = download(onDeviceZero.address(), (int)(2 * type.size()));
                assertArrayEquals(expected, actual, "device " + device);
                if (previous != null)
                {
                    assertArrayEquals(previous, actual);
                }
                previous = actual;
            }
        }
    }

    @Test
    public void shouldRefuseACompletionEventOfAnotherDevice()
    {
        final DevicePacker packer = runtime.packer(Datatype.vector(4, 1, 2, Datatype.INT).commit().compiled(), 0);
        try (DeviceRuntime other = DeviceRuntime.open(new DeviceContext().kind(runtime.kind())
            .emulatedDirectory(runtime.context().emulatedDirectory())
            .emulatedDeviceCount(runtime.context().emulatedDeviceCount())
            .emulatedMemoryBytes(runtime.context().emulatedMemoryBytes()));
            DeviceEvent foreign = other.createEvent(0);
            Allocation typed = runtime.allocate(0, 64);
            Allocation packed = runtime.allocate(0, 64))
        {
            assertThrows(IllegalArgumentException.class,
                () -> packer.pack(stream, typed.address(), 1, 0, 16, packed.address(), foreign));
        }
    }

    @Test
    public void shouldExportDeviceMemoryToAnotherProcess() throws Exception
    {
        final int length = 1 << 16;
        final byte[] original = new byte[length];
        new RandomTypes(11).nextBytes(original);
        try (Allocation memory = runtime.allocate(0, length + 4096))
        {
            upload(memory.address() + 768, original);
            final IpcHandle handle = runtime.exportIpc(memory.address() + 768, length);
            final IpcHandle decoded = IpcHandle.fromBytes(handle.toBytes());
            assertEquals(768, decoded.offsetBytes());
            final List<String> output = IpcChild.run(runtime, decoded, 11, 12);
            assertTrue(output.contains("same mapping true"), output.toString());
            assertTrue(output.contains("open 1"), output.toString());
            assertTrue(output.contains("read ok"), output.toString());
            assertTrue(output.contains("invalidate another export false"), output.toString());
            assertTrue(output.contains("invalidate its export true"), output.toString());
            assertTrue(output.contains("open after invalidate 0"), output.toString());
            final byte[] written = new byte[length];
            new RandomTypes(12).nextBytes(written);
            assertArrayEquals(written, download(memory.address() + 768, length));
        }
    }

    /**
     * A handle opened by another process after its owner freed the allocation is refused, with an error, and nothing
     * of the freed memory is read: a promise of the emulated device. CUDA does not keep it (on an H200 a child opened
     * the handle of a freed 64 KiB allocation without an error: the driver keeps the block it lay in), so the engine
     * never opens a handle whose memory may be freed: a send's buffer stays the sender's until the receiver's ACK.
     */
    @Test
    public void shouldRefuseAHandleOpenedAfterItsOwnerFreedTheAllocation() throws Exception
    {
        assumeTrue(runtime.kind() == DeviceKind.EMULATED, "CUDA may open the handle of freed memory");
        final IpcHandle handle;
        try (Allocation memory = runtime.allocate(0, 1 << 16))
        {
            handle = runtime.exportIpc(memory.address(), 1 << 16);
        }
        final AssertionError refused = assertThrows(AssertionError.class, () -> IpcChild.run(runtime, handle, 11, 12),
            "the child opens the handle of freed memory");
        assertTrue(refused.getMessage().contains("exited with 1: [failed "), refused.getMessage());
        assertFalse(refused.getMessage().contains("read ok"), refused.getMessage());
    }

    /**
     * A new allocation at the address of a freed one is another allocation to a peer: its handle differs (as CUDA
     * documents for cudaIpcGetMemHandle), so that a peer that mapped the old one does not reuse that mapping, with
     * the old allocation's length, for it.
     */
    @Test
    public void shouldExportANewAllocationAtTheAddressOfAFreedOneUnderAHandleOfItsOwn()
    {
        final long address;
        final IpcHandle first;
        try (Allocation memory = runtime.allocate(0, 4096))
        {
            address = memory.address();
            first = runtime.exportIpc(address, 4096);
            assertTrue(first.sameAllocation(runtime.exportIpc(address + 64, 1024)), "one allocation, one handle");
        }
        try (Allocation memory = runtime.allocate(0, 1 << 20))
        {
            assumeTrue(memory.address() == address, "the allocator put the new allocation elsewhere");
            final IpcHandle second = runtime.exportIpc(address, 1 << 20);
            assertFalse(first.sameAllocation(second), "a freed allocation's handle names its successor: " + second);
        }
    }

    /**
     * The mappings of a process that exports nothing more (gone, or left) close: at once when unused, when their
     * last use is closed otherwise; a later handle of it is mapped afresh.
     */
    @Test
    public void shouldCloseTheMappingsOfAProcessOnceToldItIsGone()
    {
        final long self = ProcessHandle.current().pid();
        runtime.invalidateIpcOf(self);
        assertEquals(0, runtime.openIpcCount(), "mappings left by other tests, all of this process");
        try (Allocation first = runtime.allocate(0, 8192);
            Allocation second = runtime.allocate(0, 8192))
        {
            final IpcHandle firstHandle = runtime.exportIpc(first.address(), 8192);
            final IpcHandle secondHandle = runtime.exportIpc(second.address(), 8192);
            runtime.openIpc(firstHandle).close();
            final IpcMapping held = runtime.openIpc(secondHandle);
            assertEquals(2, runtime.openIpcCount());
            assertEquals(0, runtime.invalidateIpcOf(self + 1), "mappings of another process");
            assertEquals(2, runtime.invalidateIpcOf(self));
            assertEquals(0, runtime.openIpcCount());
            assertEquals(second.address(), held.address(), "a mapping in use stays usable until closed");
            held.close();
            try (IpcMapping again = runtime.openIpc(firstHandle))
            {
                assertEquals(first.address(), again.address());
                assertEquals(1, runtime.openIpcCount());
            }
        }
    }

    /**
     * Freeing an exported allocation tells the export listeners, with the number its handles carry, once; freeing
     * one never exported tells them nothing; a new export at the same address has another number.
     */
    @Test
    public void shouldTellExportListenersOfEachFreedExportOnce()
    {
        final List<long[]> told = Collections.synchronizedList(new ArrayList<>());
        final IpcExportListener listener = (address, number) -> told.add(new long[]{ address, number });
        runtime.addExportListener(listener);
        try
        {
            final Allocation exported = runtime.allocate(0, 4096);
            final Allocation kept = runtime.allocate(0, 4096);
            final IpcHandle handle = runtime.exportIpc(exported.address() + 128, 256);
            assertEquals(handle.exportNumber(), runtime.exportIpc(exported.address(), 4096).exportNumber(),
                "one allocation, one export");
            final long address = exported.address();
            exported.free();
            kept.free();
            assertEquals(1, told.size(), "listeners told of the exported allocation alone");
            assertEquals(address, told.get(0)[0]);
            assertEquals(handle.exportNumber(), told.get(0)[1]);
            try (Allocation again = runtime.allocate(0, 4096))
            {
                assertNotEquals(handle.exportNumber(), runtime.exportIpc(again.address(), 4096).exportNumber());
            }
            assertEquals(2, told.size(), "the second export freed");
        }
        finally
        {
            runtime.removeExportListener(listener);
        }
        try (Allocation unheard = runtime.allocate(0, 4096))
        {
            runtime.exportIpc(unheard.address(), 4096);
        }
        assertEquals(2, told.size(), "a listener removed is told nothing");
    }

    /**
     * The mapping of an export its owner freed closes when told so by export number: at once where unused, when its
     * last use is closed otherwise; a number of another export leaves it open.
     */
    @Test
    public void shouldCloseTheMappingOfAFreedExportByItsNumber()
    {
        final long self = ProcessHandle.current().pid();
        runtime.invalidateIpcOf(self);
        try (Allocation memory = runtime.allocate(0, 8192))
        {
            final IpcHandle handle = runtime.exportIpc(memory.address(), 8192);
            runtime.openIpc(handle).close();
            assertEquals(1, runtime.openIpcCount(), "an unused mapping stays for reuse");
            assertFalse(runtime.invalidateIpc(self, memory.address(), handle.exportNumber() + 1));
            assertFalse(runtime.invalidateIpc(self, memory.address() + 8, handle.exportNumber()));
            assertEquals(1, runtime.openIpcCount());
            assertTrue(runtime.invalidateIpc(self, memory.address(), handle.exportNumber()));
            assertEquals(0, runtime.openIpcCount());
            final IpcMapping held = runtime.openIpc(handle);
            assertTrue(runtime.invalidateIpc(self, memory.address(), handle.exportNumber()));
            assertEquals(0, runtime.openIpcCount(), "a mapping in use leaves the cache at once");
            assertEquals(memory.address(), held.address(), "and stays usable until closed");
            held.close();
            assertFalse(runtime.invalidateIpc(self, memory.address(), handle.exportNumber()), "told twice");
        }
    }

    /**
     * A peer that was not told of a free yet (its IPC_RELEASE still on the way) maps a new allocation at the freed
     * one's address afresh all the same: the cache holds the new export, not the old, and a late word of the old one
     * leaves it open.
     */
    @Test
    public void shouldMapTheExportOfANewAllocationAtAFreedOnesAddressAfreshWhenNotToldOfTheFree()
    {
        final long self = ProcessHandle.current().pid();
        runtime.invalidateIpcOf(self);
        final long address;
        final IpcHandle old;
        try (Allocation memory = runtime.allocate(0, 8192))
        {
            address = memory.address();
            old = runtime.exportIpc(address, 8192);
            runtime.openIpc(old).close();
        }
        try (Allocation memory = runtime.allocate(0, 8192))
        {
            assumeTrue(memory.address() == address, "the allocator put the new allocation elsewhere");
            final IpcHandle handle = runtime.exportIpc(address, 8192);
            runtime.openIpc(handle).close();
            assertEquals(1, runtime.openIpcCount(), "the old export's mapping was retired for the new one");
            assertFalse(runtime.invalidateIpc(self, address, old.exportNumber()), "a late word of the old export");
            assertEquals(1, runtime.openIpcCount());
            assertTrue(runtime.invalidateIpc(self, address, handle.exportNumber()));
        }
    }

    @Test
    public void shouldOpenItsOwnExportWithoutTheDriver()
    {
        try (Allocation memory = runtime.allocate(0, 8192))
        {
            final IpcHandle handle = runtime.exportIpc(memory.address() + 512, 1024);
            try (IpcMapping mapping = runtime.openIpc(handle))
            {
                assertEquals(memory.address() + 512, mapping.address());
                assertEquals(1024, mapping.lengthBytes());
            }
        }
    }

    @Test
    public void shouldRefuseToExportHostMemory()
    {
        try (Allocation pinned = runtime.allocatePinned(4096))
        {
            assertThrows(DeviceException.class, () -> runtime.exportIpc(pinned.address(), 4096));
        }
    }

    /**
     * @param n edge of the cube.
     * @return the X, Y and Z halo faces of an n^3 float array, x fastest: vector(n*n, 1, n), vector(n, n, n*n),
     * contiguous(n*n), plus the paper's X subarray plane.
     */
    protected static List<Datatype> faces(final int n)
    {
        return Arrays.asList(
            Datatype.vector(n * n, 1, n, Datatype.FLOAT),
            Datatype.vector(n, n, n * n, Datatype.FLOAT),
            Datatype.contiguous(n * n, Datatype.FLOAT),
            Datatype.subarray(new int[] {n, n, n}, new int[] {n - 2, n - 2, 1}, new int[] {1, 1, n - 2}, Order.C,
                Datatype.FLOAT));
    }

    private void checkPack(final RandomTypes random, final Datatype type, final long count, final boolean toPinned)
    {
        final CompiledType compiled = type.compiled();
        final long low = compiled.dataLowBytes(count);
        final long high = compiled.dataHighBytes(count);
        final int slack = random.nextInt(17);
        final int typedBytes = (int)(high - low) + 32;
        final long total = count * compiled.size();
        final byte[] values = new byte[typedBytes];
        random.nextBytes(values);
        final DevicePacker packer = runtime.packer(compiled, 0);
        try (Allocation typed = runtime.allocate(0, typedBytes);
            Allocation packed = toPinned ? runtime.allocatePinned(total + 64) : runtime.allocate(0, total + 64))
        {
            upload(typed.address(), values);
            final long base = typed.address() + slack - low;
            for (final long[] range : ranges(random, total))
            {
                final int packedSlack = random.nextInt(8);
                final int window = (int)range[1] + 48;
                fill(packed.address(), POISON, (int)total + 64);
                packer.pack(stream, base, count, range[0], range[1], packed.address() + packedSlack);
                stream.synchronize();
                final byte[] expected = hostPack(compiled, values, slack - low, count, range[0], range[1], 48);
                final byte[] actual = download(packed.address() + packedSlack, window);
                if (!Arrays.equals(expected, actual))
                {
                    fail(type + " x" + count + " packed range [" + range[0] + ", +" + range[1] + ") typed slack " +
                        slack + " packed slack " + packedSlack + ": first difference at byte " +
                        Arrays.mismatch(expected, actual) + " of " + window + "\n" + compiled.describe());
                }
            }
        }
    }

    private void checkUnpack(final RandomTypes random, final Datatype type, final long count, final boolean fromPinned)
    {
        final CompiledType compiled = type.compiled();
        final long low = compiled.dataLowBytes(count);
        final long high = compiled.dataHighBytes(count);
        final int slack = random.nextInt(17);
        final int typedBytes = (int)(high - low) + 32;
        final long total = count * compiled.size();
        final byte[] poisoned = new byte[typedBytes];
        Arrays.fill(poisoned, POISON);
        final DevicePacker packer = runtime.packer(compiled, 0);
        try (Allocation typed = runtime.allocate(0, typedBytes);
            Allocation packed = fromPinned ? runtime.allocatePinned(total + 16) : runtime.allocate(0, total + 16))
        {
            final long base = typed.address() + slack - low;
            for (final long[] range : ranges(random, total))
            {
                final byte[] incoming = new byte[(int)range[1]];
                random.nextBytes(incoming);
                final int packedSlack = random.nextInt(8);
                upload(typed.address(), poisoned);
                upload(packed.address() + packedSlack, incoming);
                packer.unpack(stream, packed.address() + packedSlack, count, range[0], range[1], base);
                stream.synchronize();
                final byte[] expected = hostUnpackRange(compiled, poisoned, slack - low, count, range[0], incoming);
                final byte[] actual = download(typed.address(), typedBytes);
                if (!Arrays.equals(expected, actual))
                {
                    fail(type + " x" + count + " unpacked range [" + range[0] + ", +" + range[1] + ") typed slack " +
                        slack + ": first difference at byte " + Arrays.mismatch(expected, actual) + " of " +
                        typedBytes + "\n" + compiled.describe());
                }
            }
        }
    }

    private static List<long[]> ranges(final RandomTypes random, final long total)
    {
        final List<long[]> ranges = new ArrayList<>();
        ranges.add(new long[] {0, total});
        ranges.add(new long[] {0, 1});
        ranges.add(new long[] {total - 1, 1});
        for (int i = 0; i < 3; i++)
        {
            final long offset = random.nextLong(total);
            ranges.add(new long[] {offset, 1 + random.nextLong(total - offset)});
        }
        return ranges;
    }

    private static byte[] hostPack(final CompiledType type, final byte[] values, final long baseOffset,
        final long count, final long packedOffset, final long length, final int guard)
    {
        final HostBuffer typed = new HostBuffer(values.length);
        typed.put(values);
        final HostBuffer packed = new HostBuffer((int)length + guard);
        packed.fill(POISON, (int)length + guard);
        type.pack(typed.address() + baseOffset, count, packedOffset, length, packed.address());
        return packed.get((int)length + guard);
    }

    private static byte[] hostUnpackRange(final CompiledType type, final byte[] values, final long baseOffset,
        final long count, final long packedOffset, final byte[] incoming)
    {
        final HostBuffer typed = new HostBuffer(values.length);
        typed.put(values);
        final HostBuffer packed = new HostBuffer(incoming.length);
        packed.put(incoming);
        type.unpack(packed.address(), count, packedOffset, incoming.length, typed.address() + baseOffset);
        return typed.get(values.length);
    }

    private static void awaitPolling(final DeviceEvent event)
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!event.isComplete())
        {
            if (System.nanoTime() > deadline)
            {
                fail("event did not complete within 30 s");
            }
            Thread.onSpinWait();
        }
    }

    protected void upload(final long address, final byte[] bytes)
    {
        final HostBuffer host = new HostBuffer(bytes.length);
        host.put(bytes);
        stream.copy(address, host.address(), bytes.length);
        stream.synchronize();
    }

    protected byte[] download(final long address, final int length)
    {
        final HostBuffer host = new HostBuffer(length);
        stream.copy(host.address(), address, length);
        stream.synchronize();
        return host.get(length);
    }

    protected void fill(final long address, final byte value, final int length)
    {
        final byte[] bytes = new byte[length];
        Arrays.fill(bytes, value);
        upload(address, bytes);
    }

    private byte[] read(final long hostAddress, final int length)
    {
        final byte[] bytes = new byte[length];
        org.agrona.UnsafeApi.copyMemory(null, hostAddress, bytes, org.agrona.UnsafeApi.arrayBaseOffset(byte[].class),
            length);
        return bytes;
    }

    private void write(final long hostAddress, final byte[] bytes)
    {
        org.agrona.UnsafeApi.copyMemory(bytes, org.agrona.UnsafeApi.arrayBaseOffset(byte[].class), null, hostAddress,
            bytes.length);
    }
}
