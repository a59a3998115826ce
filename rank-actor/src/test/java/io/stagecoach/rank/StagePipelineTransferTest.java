package io.stagecoach.rank;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;

import io.stagecoach.device.DeviceContext;
import io.stagecoach.device.DeviceKind;
import io.stagecoach.device.DeviceRuntime;
import io.stagecoach.device.RandomTypes;
import io.stagecoach.device.TestMemory;
import io.stagecoach.pipeline.transfer.TransferPipeline;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Large device messages through the stage pipeline end to end, two ranks of a {@link LocalJob} on two emulated
 * devices: both wires (arena: chunks taken out of the sender's shared slots in place; stream: chunks as DATA into the
 * receiver's slots) with the path forced to the pipeline, and the default path with the IPC threshold at 0 (ipc), on
 * which the receiver gets every device message with a byte straight out of the sender's device buffer over IPC;
 * chunks of 4 KiB and 64 KiB, device to device, host to device and device to host, messages of 0, 1, chunk - 1,
 * chunk, chunk + 1 bytes, many chunks and 4 MiB + 20, each in a layout from a seeded generator that prints its seed,
 * with blocks across chunk boundaries; on the default path also a scattered device message received in another
 * scattered layout of the same packed size, got in one device operation (the copy kernel between the two layouts).
 * Each receive buffer is poisoned beforehand and checked byte for byte afterwards, the bytes outside the datatype
 * included; the path taken and the pool slots given back are checked too.
 */
class StagePipelineTransferTest
{
    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final int THRESHOLD = 1024;
    private static final long SEED = RandomTypes.seed("StagePipelineTransferTest");

    @TempDir
    static Path directory;

    private static DeviceRuntime device;
    private static String jobKey;
    private static LocalJob job;
    private static int fullSlots;
    private static int tag;

    enum Direction
    {
        DEVICE_TO_DEVICE(true, true),
        HOST_TO_DEVICE(false, true),
        DEVICE_TO_HOST(true, false);

        final boolean fromDevice;
        final boolean toDevice;

        Direction(final boolean fromDevice, final boolean toDevice)
        {
            this.fromDevice = fromDevice;
            this.toDevice = toDevice;
        }
    }

    @BeforeAll
    static void open()
    {
        device = DeviceRuntime.open(new DeviceContext().kind(DeviceKind.EMULATED).emulatedDeviceCount(2)
            .emulatedMemoryBytes(512L << 20));
    }

    @AfterAll
    static void close()
    {
        if (job != null)
        {
            job.close();
        }
        device.close();
    }

    static Stream<Arguments> transfers()
    {
        final List<Arguments> transfers = new ArrayList<>();
        for (final String wire : List.of("arena", "stream", "ipc"))
        {
            for (final int chunkBytes : wire.equals("ipc") ? List.of(4096) : List.of(4096, 64 * 1024))
            {
                for (final Direction direction : Direction.values())
                {
                    for (final long packedBytes : List.of(0L, 1L, chunkBytes - 1L, (long)chunkBytes, chunkBytes + 1L,
                        37L * chunkBytes + 123, (4L << 20) + 20))
                    {
                        transfers.add(Arguments.of(wire, chunkBytes, direction, packedBytes));
                    }
                }
            }
        }
        return transfers.stream();
    }

    @ParameterizedTest(name = "{0} wire, {1}-byte chunks, {2}, {3} bytes")
    @MethodSource("transfers")
    void shouldMoveEveryByteOfTheDatatypeAndNoOther(
        final String wire, final int chunkBytes, final Direction direction, final long packedBytes)
    {
        final LocalJob ranks = job(wire, chunkBytes);
        final RandomTypes random = new RandomTypes(SEED ^ (wire + chunkBytes + direction + packedBytes).hashCode());
        final ExactMessage message = ExactMessage.of(random, packedBytes, chunkBytes);
        final int pad = random.nextInt(256);
        final int lengthBytes = pad + message.spanBytes() + random.nextInt(256);
        final ByteBuffer source = TestBytes.random(random, lengthBytes);
        final ByteBuffer poison = TestBytes.poison(lengthBytes);
        final long[] before = { pipelineTransfers(0), pipelineTransfers(1), arenaChunks(), ipcGets() };
        try (TestMemory from = TestMemory.of(direction.fromDevice, device, 0, lengthBytes);
             TestMemory to = TestMemory.of(direction.toDevice, device, wire.equals("ipc") ? 0 : 1, lengthBytes))
        {
            from.write(source);
            to.write(poison);
            final int messageTag = ++tag;
            final Request receive = ranks.rank(1).irecv(to.address() + pad, lengthBytes - pad, message.count(),
                message.type(), 0, messageTag);
            final Request send = ranks.rank(0).isend(from.address() + pad, lengthBytes - pad, message.count(),
                message.type(), 1, messageTag);
            send.await(TIMEOUT);
            assertEquals(message.count(), receive.await(TIMEOUT).count(), "instances received");

            final ByteBuffer expected = message.unpackedInto(source.position(pad).slice(), poison.position(pad).slice());
            final ByteBuffer arrived = to.read();
            final int mismatch = poison.clear().slice(0, pad).mismatch(arrived.slice(0, pad));
            assertEquals(-1, mismatch, "byte " + mismatch + " before displacement 0 stays poisoned");
            final int wrong = expected.clear().slice(0, lengthBytes - pad).mismatch(arrived.slice(pad, lengthBytes - pad));
            assertEquals(-1, wrong, () -> "byte " + wrong + " from displacement 0 of " + message.type() +
                " (expected " + expected.get(wrong) + ", poison " + poison.get(pad + wrong) + ")");
            assertPath(direction, wire, packedBytes, chunkBytes, before);
            awaitSlotsBack();
        }
    }

    static Stream<Long> scatteredSizes()
    {
        return Stream.of(1L, 4095L, 4096L, 4097L, 37L * 4096 + 123, (4L << 20) + 20);
    }

    /**
     * A scattered device message received in another scattered layout (both of bytes, so that their signatures
     * agree) is got over IPC in one device operation, the copy kernel between the two layouts, with nothing through
     * the stage pipeline.
     */
    @ParameterizedTest(name = "{0} bytes")
    @MethodSource("scatteredSizes")
    void shouldGetAScatteredDeviceMessageIntoAnotherScatteredLayout(final long packedBytes)
    {
        final LocalJob ranks = job("ipc", 4096);
        final RandomTypes random = RandomTypes.ofBytes(SEED ^ packedBytes);
        final ExactMessage send = ExactMessage.of(random, packedBytes, 4096);
        final ExactMessage receive = ExactMessage.of(random, packedBytes, 4096);
        final ByteBuffer source = TestBytes.random(random, send.spanBytes());
        final ByteBuffer poison = TestBytes.poison(receive.spanBytes());
        final long[] before = { pipelineTransfers(0), pipelineTransfers(1), ipcGets() };
        try (TestMemory from = TestMemory.device(device, 0, send.spanBytes());
             TestMemory to = TestMemory.device(device, 0, receive.spanBytes()))
        {
            from.write(source);
            to.write(poison);
            final int messageTag = ++tag;
            final Request received = ranks.rank(1).irecv(to.address(), receive.spanBytes(), receive.count(),
                receive.type(), 0, messageTag);
            ranks.rank(0).isend(from.address(), send.spanBytes(), send.count(), send.type(), 1, messageTag)
                .await(TIMEOUT);
            assertEquals(receive.count(), received.await(TIMEOUT).count(), "instances received");
            final int wrong = send.receivedAs(receive, source, poison).mismatch(to.read());
            assertEquals(-1, wrong, () -> "byte " + wrong + " of " + send.type() + " received as " + receive.type());
            assertEquals(before[2] + 1, ipcGets(), "device messages got over IPC");
            assertEquals(before[0], pipelineTransfers(0), "sends through the pipeline");
            assertEquals(before[1], pipelineTransfers(1), "receives through the pipeline");
        }
    }

    /**
     * A receiver takes at most {@link TransferPipeline#ARENA_RING} chunks out of a sender's arena at once, whatever the
     * sender's slots: a send with more slots than that announces no more chunks ahead of those done.
     */
    @Test
    void shouldMoveEveryByteWhenTheSenderHoldsMoreSlotsThanTheReceiverTakesChunksOutOfItsArenaAtOnce()
    {
        final int slots = 2 * TransferPipeline.ARENA_RING + 3;
        final int chunkBytes = 4096;
        final RandomTypes random = new RandomTypes(SEED ^ slots);
        final ExactMessage message = ExactMessage.of(random, 3L * slots * chunkBytes + 5, chunkBytes);
        final ByteBuffer source = TestBytes.random(random, message.spanBytes());
        final ByteBuffer poison = TestBytes.poison(message.spanBytes());
        try (LocalJob ranks = LocalJob.start(directory, 2, context -> context.eagerThresholdBytes(THRESHOLD)
            .deviceRuntime(device).chunkBytes(chunkBytes).pipelineSlots(slots).pipelinePoolSlots(slots)
            .devicePath("staged"));
             TestMemory from = TestMemory.device(device, 0, message.spanBytes());
             TestMemory to = TestMemory.device(device, 1, message.spanBytes()))
        {
            from.write(source);
            for (int round = 0; round < 2; round++)
            {
                to.write(poison);
                final Request receive = ranks.rank(1).irecv(to.address(), message.spanBytes(), message.count(),
                    message.type(), 0, 1);
                ranks.rank(0).isend(from.address(), message.spanBytes(), message.count(), message.type(), 1, 1)
                    .await(TIMEOUT);
                assertEquals(message.count(), receive.await(TIMEOUT).count(), "instances received");
                final int wrong = message.unpackedInto(source, poison).mismatch(to.read());
                assertEquals(-1, wrong, "byte " + wrong + " of round " + round);
            }
        }
    }

    /**
     * A receiver that cannot get a device message over IPC answers a CTS, and the sender's stage pipeline moves it
     * then: here a scattered message between two devices, whose kernels cannot read each other's memory; a contiguous
     * one between them is one copy over IPC.
     */
    @Test
    void shouldMoveADeviceMessageThroughTheStagePipelineWhereTheReceiverCannotGetIt()
    {
        final LocalJob ranks = job("ipc", 4096);
        final RandomTypes random = new RandomTypes(SEED ^ 0x1FC);
        for (final boolean contiguous : new boolean[]{ false, true })
        {
            ExactMessage message = ExactMessage.contiguous(300_001);
            while (!contiguous && message.type().compiled().isContiguous())
            {
                message = ExactMessage.of(random, 300_001, 4096);
            }
            final ByteBuffer source = TestBytes.random(random, message.spanBytes());
            final ByteBuffer poison = TestBytes.poison(message.spanBytes());
            final long[] before = { pipelineTransfers(0), pipelineTransfers(1), ipcGets() };
            try (TestMemory from = TestMemory.device(device, 0, message.spanBytes());
                 TestMemory to = TestMemory.device(device, 1, message.spanBytes()))
            {
                from.write(source);
                to.write(poison);
                final int messageTag = ++tag;
                final Request receive = ranks.rank(1).irecv(to.address(), message.spanBytes(), message.count(),
                    message.type(), 0, messageTag);
                ranks.rank(0).isend(from.address(), message.spanBytes(), message.count(), message.type(), 1,
                    messageTag).await(TIMEOUT);
                assertEquals(message.count(), receive.await(TIMEOUT).count(), "instances received");
                final int wrong = message.unpackedInto(source, poison).mismatch(to.read());
                assertEquals(-1, wrong, "byte " + wrong + " of " + message.type());
                assertEquals(before[2] + (contiguous ? 1 : 0), ipcGets(), "device messages got over IPC");
                assertEquals(before[0] + (contiguous ? 0 : 1), pipelineTransfers(0), "sends through the pipeline");
                assertEquals(before[1] + (contiguous ? 0 : 1), pipelineTransfers(1), "receives through the pipeline");
                awaitSlotsBack();
            }
        }
    }

    /**
     * With the IPC threshold below the eager threshold, small device messages to a same-node rank are got over IPC
     * too, whatever their layout: 1, 100 and 1024 bytes (the eager threshold) from device to device and to host.
     */
    @Test
    void shouldGetSmallDeviceMessagesOverIpcBelowAnIpcThresholdOfZero()
    {
        final RandomTypes random = new RandomTypes(SEED ^ 0x5A11);
        try (LocalJob ranks = LocalJob.start(directory, 2, context -> context.eagerThresholdBytes(THRESHOLD)
            .deviceRuntime(device).deviceIpcThresholdBytes(0)))
        {
            int expected = 0;
            for (final Direction direction : List.of(Direction.DEVICE_TO_DEVICE, Direction.DEVICE_TO_HOST))
            {
                for (final long packedBytes : List.of(1L, 100L, (long)THRESHOLD))
                {
                    final ExactMessage message = ExactMessage.of(random, packedBytes, 4096);
                    final ByteBuffer source = TestBytes.random(random, message.spanBytes());
                    final ByteBuffer poison = TestBytes.poison(message.spanBytes());
                    try (TestMemory from = TestMemory.device(device, 0, message.spanBytes());
                         TestMemory to = TestMemory.of(direction.toDevice, device, 0, message.spanBytes()))
                    {
                        from.write(source);
                        to.write(poison);
                        final Request receive = ranks.rank(1).irecv(to.address(), message.spanBytes(),
                            message.count(), message.type(), 0, 7);
                        ranks.rank(0).isend(from.address(), message.spanBytes(), message.count(), message.type(), 1,
                            7).await(TIMEOUT);
                        assertEquals(message.count(), receive.await(TIMEOUT).count(), "instances received");
                        final int wrong = message.unpackedInto(source, poison).mismatch(to.read());
                        assertEquals(-1, wrong, "byte " + wrong + " of " + packedBytes + " bytes " + direction);
                        assertEquals(++expected, ranks.rank(1).engine().counters(0)[10],
                            packedBytes + " bytes " + direction + " got over IPC");
                    }
                }
            }
        }
    }

    /**
     * Host buffers of {@code Communicator.allocate} lie in the rank's shared arena: a same-node device receive copies
     * a host message straight out of the sender's buffer there (its pages registered with the device), and a device
     * message to such a host buffer lands in it in place, registered too; 1 MiB as that many bytes (as a benchmark
     * sends it), blocks of 256 bytes 384 apart (described where they lie) and blocks of 8 bytes 24 apart (packed into
     * the sender's arena, and unpacked from there by the receiver's device), both ways.
     */
    @Test
    void shouldMoveMessagesBetweenDeviceMemoryAndHostBuffersInTheSharedArenaInPlace()
    {
        final LocalJob ranks = job("ipc", 4096);
        final RandomTypes random = new RandomTypes(SEED ^ 0xA2E4A);
        for (final boolean toDevice : new boolean[]{ true, false })
        {
            for (final ExactMessage message : List.of(
                new ExactMessage(io.stagecoach.protocol.datatype.Datatype.BYTE, 1 << 20, 1 << 20),
                ExactMessage.strided(1171, 256, 384), ExactMessage.strided(20_001, 8, 24)))
            {
                final int span = message.spanBytes();
                final ByteBuffer source = TestBytes.random(random, span);
                final ByteBuffer poison = TestBytes.poison(span);
                final long[] before = { pipelineTransfers(0), pipelineTransfers(1), ipcGets() };
                final ByteBuffer host = (toDevice ? ranks.rank(0) : ranks.rank(1)).allocate(span);
                try (TestMemory deviceMemory = TestMemory.device(device, 0, span))
                {
                    final long hostAddress = org.agrona.BufferUtil.address(host);
                    host.clear().put(toDevice ? source.duplicate().clear() : poison.duplicate().clear()).clear();
                    deviceMemory.write(toDevice ? poison : source);
                    final long from = toDevice ? hostAddress : deviceMemory.address();
                    final long to = toDevice ? deviceMemory.address() : hostAddress;
                    final int messageTag = ++tag;
                    final Request receive = ranks.rank(1).irecv(to, span, message.count(), message.type(), 0,
                        messageTag);
                    ranks.rank(0).isend(from, span, message.count(), message.type(), 1, messageTag).await(TIMEOUT);
                    assertEquals(message.count(), receive.await(TIMEOUT).count(), "instances received");
                    final ByteBuffer arrived = toDevice ? deviceMemory.read() : host.duplicate().clear();
                    final int wrong = message.unpackedInto(source, poison).mismatch(arrived);
                    assertEquals(-1, wrong, "byte " + wrong + (toDevice ? " to device" : " to host"));
                    assertEquals(before[2] + 1, ipcGets(), "got one-sided");
                    assertEquals(before[0], pipelineTransfers(0), "sends through the pipeline");
                    assertEquals(before[1], pipelineTransfers(1), "receives through the pipeline");
                    assertTrue(ranks.rank(1).engine().device().registeredRanges() > 0, "host pages registered");
                }
                finally
                {
                    (toDevice ? ranks.rank(0) : ranks.rank(1)).free(host);
                }
            }
        }
    }

    private static void assertPath(
        final Direction direction, final String wire, final long packedBytes, final int chunkBytes,
        final long[] before)
    {
        final boolean large = packedBytes > THRESHOLD;
        final boolean ipc = wire.equals("ipc") && (direction.fromDevice ? packedBytes > 0 : large);
        assertEquals(before[3] + (ipc ? 1 : 0), ipcGets(), "device messages got over IPC");
        assertEquals(before[0] + (large && direction.fromDevice && !ipc ? 1 : 0), pipelineTransfers(0),
            "sends through the stage pipeline");
        assertEquals(before[1] + (large && direction.toDevice && !ipc ? 1 : 0), pipelineTransfers(1),
            "receives through the stage pipeline");
        final boolean inPlace = large && direction == Direction.DEVICE_TO_DEVICE && wire.equals("arena");
        assertEquals(before[2] + (inPlace ? (packedBytes + chunkBytes - 1) / chunkBytes : 0), arenaChunks(),
            "chunks taken out of the sender's arena in place");
    }

    private static void awaitSlotsBack()
    {
        awaitTrue(() -> job.rank(0).engine().device().freeSlots() == fullSlots &&
            job.rank(1).engine().device().freeSlots() == fullSlots, "every pool slot of both ranks back");
    }

    private static LocalJob job(final String wire, final int chunkBytes)
    {
        final String key = wire + "/" + chunkBytes;
        if (!key.equals(jobKey))
        {
            if (job != null)
            {
                job.close();
            }
            job = LocalJob.start(directory, 2, context -> context.eagerThresholdBytes(THRESHOLD)
                .deviceRuntime(device).chunkBytes(chunkBytes).pipelineWire(wire.equals("ipc") ? "arena" : wire)
                .devicePath(wire.equals("ipc") ? "auto" : "staged").deviceIpcThresholdBytes(0));
            jobKey = key;
            fullSlots = job.rank(0).engine().device().freeSlots();
        }
        return job;
    }

    private static long pipelineTransfers(final int rank)
    {
        return job.rank(rank).engine().device().transfersStarted();
    }

    private static long arenaChunks()
    {
        return job.rank(1).engine().counters(0)[9];
    }

    private static long ipcGets()
    {
        return job.rank(1).engine().counters(0)[10];
    }

    private static void awaitTrue(final BooleanSupplier condition, final String what)
    {
        final long deadlineNs = System.nanoTime() + TIMEOUT.toNanos();
        while (!condition.getAsBoolean())
        {
            assertTrue(System.nanoTime() - deadlineNs < 0, "waited " + TIMEOUT.toSeconds() + " s for " + what);
            Thread.yield();
        }
    }
}
