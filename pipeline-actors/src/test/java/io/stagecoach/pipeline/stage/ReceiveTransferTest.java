package io.stagecoach.pipeline.stage;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import io.stagecoach.device.Allocation;
import io.stagecoach.pipeline.stage.RecordingPort.ChunkSlot;
import io.stagecoach.pipeline.stage.RecordingPort.ChunkUnpacked;
import io.stagecoach.pipeline.stage.RecordingPort.Fact;
import io.stagecoach.pipeline.stage.RecordingPort.TransferFailed;
import io.stagecoach.pipeline.transfer.TransferHandle;
import org.apache.pekko.actor.testkit.typed.annotations.JUnit5TestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.JUnit5TestKitBuilder;
import org.apache.pekko.actor.testkit.typed.javadsl.TestKitJUnit5Extension;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

import static io.stagecoach.pipeline.stage.StageFixture.TRANSFER_SLOTS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The receive actor on the emulated device, its port a probe: it offers a slot per chunk in order, as many ahead as
 * its slots allow, unpacks each chunk that arrives (in any order) and offers the next chunk in the slot freed, leaves
 * every byte outside the datatype as it was, gives every slot back at its end, holds its slots through a cancel until
 * the device work in flight is done, and reports a device failure once.
 */
@ExtendWith(TestKitJUnit5Extension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ReceiveTransferTest
{
    private static final Duration TIMEOUT = Duration.ofSeconds(10);
    private static final Duration QUIET = Duration.ofMillis(300);
    private static final byte POISON = (byte)0xA5;

    @JUnit5TestKit
    public ActorTestKit testKit = new JUnit5TestKitBuilder().build();

    private StageFixture fixture;
    private int fullSlots;

    @BeforeAll
    void open()
    {
        fixture = new StageFixture(testKit.system(), "ReceiveTransferTest");
        fullSlots = fixture.pipeline.freeSlots();
    }

    @AfterAll
    void close()
    {
        fixture.close();
    }

    @Test
    void shouldOfferSlotsInOrderAndUnpackEachChunkAsItArrives()
    {
        final TestProbe<Fact> port = testKit.createTestProbe();
        final ByteBuffer typed = fixture.randomHost();
        final ByteBuffer poisoned = fixture.filledHost(POISON);
        final Allocation destination = fixture.toDevice(poisoned);
        try
        {
            final TransferHandle handle =
                fixture.pipeline.startReceive(fixture.spec(destination, new RecordingPort(port)), true);
            final long[] slotOf = new long[fixture.plan.chunks()];
            for (int chunk = 0; chunk < TRANSFER_SLOTS; chunk++)
            {
                slotOf[chunk] = expectSlot(port, chunk);
            }
            port.expectNoMessage(QUIET);
            assertEquals(fullSlots - TRANSFER_SLOTS, fixture.pipeline.freeSlots(), "slots leased by the receive");

            for (int chunk = 0; chunk < fixture.plan.chunks(); chunk++)
            {
                arrive(handle, typed, chunk, slotOf[chunk]);
                assertEquals(chunk, port.expectMessageClass(ChunkUnpacked.class, TIMEOUT).chunk(), "chunk unpacked");
                final int next = chunk + TRANSFER_SLOTS;
                if (next < fixture.plan.chunks())
                {
                    slotOf[next] = expectSlot(port, next);
                    assertEquals(slotOf[chunk], slotOf[next], "chunk " + next + " offered the slot chunk " + chunk +
                        " left");
                }
            }
            Waits.until(() -> fixture.pipeline.freeSlots() == fullSlots, TIMEOUT, "every slot back after the last chunk");
            port.expectNoMessage(QUIET);
            assertEquals(-1, fixture.unpacked(typed, poisoned).mismatch(fixture.toHost(destination)),
                "every byte of the receive buffer: the datatype's unpacked, the others still poisoned");
        }
        finally
        {
            destination.free();
        }
    }

    /**
     * Chunks may complete in any order (the engine places DATA anywhere in the window); the engine keeps each chunk's
     * slot at the chunk modulo the transfer's slots, so a chunk may be offered only once the chunk that many before it
     * is unpacked, and never in a slot another chunk still holds.
     */
    @Test
    void shouldNeverOfferASlotAnotherChunkHoldsWhenChunksArriveOutOfOrder()
    {
        final TestProbe<Fact> port = testKit.createTestProbe();
        final ByteBuffer typed = fixture.randomHost();
        final ByteBuffer poisoned = fixture.filledHost(POISON);
        final Allocation destination = fixture.toDevice(poisoned);
        final int chunks = fixture.plan.chunks();
        try
        {
            final TransferHandle handle =
                fixture.pipeline.startReceive(fixture.spec(destination, new RecordingPort(port)), true);
            final Map<Integer, Long> held = new TreeMap<>();
            final boolean[] unpacked = new boolean[chunks];
            int nextOffer = 0;
            for (; nextOffer < TRANSFER_SLOTS; nextOffer++)
            {
                held.put(nextOffer, expectSlot(port, nextOffer));
            }
            while (!held.isEmpty())
            {
                final List<Integer> waiting = new ArrayList<>(held.keySet());
                final int chunk = waiting.get(fixture.nextInt(waiting.size()));
                arrive(handle, typed, chunk, held.remove(chunk));
                assertEquals(chunk, port.expectMessageClass(ChunkUnpacked.class, TIMEOUT).chunk(), "chunk unpacked");
                unpacked[chunk] = true;
                while (held.size() < TRANSFER_SLOTS && nextOffer < chunks &&
                    (nextOffer < TRANSFER_SLOTS || unpacked[nextOffer - TRANSFER_SLOTS]))
                {
                    final long slot = expectSlot(port, nextOffer);
                    assertFalse(held.containsValue(slot), "chunk " + nextOffer + " offered a slot held: " + held);
                    held.put(nextOffer++, slot);
                }
                port.expectNoMessage(Duration.ofMillis(50));
            }
            assertEquals(chunks, nextOffer, "every chunk offered a slot");
            Waits.until(() -> fixture.pipeline.freeSlots() == fullSlots, TIMEOUT, "every slot back after the last chunk");
            assertEquals(-1, fixture.unpacked(typed, poisoned).mismatch(fixture.toHost(destination)),
                "every byte of the receive buffer: the datatype's unpacked, the others still poisoned");
        }
        finally
        {
            destination.free();
        }
    }

    @Test
    void shouldHoldItsSlotsThroughACancelUntilTheDeviceWorkInFlightIsDone()
    {
        final TestProbe<Fact> port = testKit.createTestProbe();
        final ByteBuffer typed = fixture.randomHost();
        final Allocation destination = fixture.toDevice(fixture.filledHost(POISON));
        try
        {
            final TransferHandle handle =
                fixture.pipeline.startReceive(fixture.spec(destination, new RecordingPort(port)), true);
            final long[] slotOf = new long[TRANSFER_SLOTS];
            for (int chunk = 0; chunk < TRANSFER_SLOTS; chunk++)
            {
                slotOf[chunk] = expectSlot(port, chunk);
            }
            fixture.pump.hold();
            arrive(handle, typed, 0, slotOf[0]);
            arrive(handle, typed, 1, slotOf[1]);

            handle.cancel();
            Waits.stays(fullSlots - TRANSFER_SLOTS, fixture.pipeline::freeSlots, QUIET,
                "slots stay leased while their unpacks are in flight");
            fixture.pump.release();
            Waits.until(() -> fixture.pipeline.freeSlots() == fullSlots, TIMEOUT,
                "every slot back once the unpacks in flight completed");
            port.expectNoMessage(QUIET);
        }
        finally
        {
            fixture.pump.release();
            destination.free();
        }
    }

    @Test
    void shouldReportAnUnpackThatFailsOnceAndGiveEverySlotBack()
    {
        final TestProbe<Fact> port = testKit.createTestProbe();
        final ByteBuffer typed = fixture.randomHost();
        final Allocation destination = fixture.toDevice(fixture.filledHost(POISON));
        final TransferHandle handle =
            fixture.pipeline.startReceive(fixture.spec(destination, new RecordingPort(port)), true);
        final long[] slotOf = new long[TRANSFER_SLOTS];
        for (int chunk = 0; chunk < TRANSFER_SLOTS; chunk++)
        {
            slotOf[chunk] = expectSlot(port, chunk);
        }
        destination.free();

        arrive(handle, typed, 0, slotOf[0]);
        arrive(handle, typed, 1, slotOf[1]);

        final TransferFailed failed = port.expectMessageClass(TransferFailed.class, TIMEOUT);
        assertInstanceOf(StagingException.class, failed.failure());
        assertTrue(failed.failure().getMessage().startsWith("unpacking chunk 0 of transfer "),
            failed.failure()::getMessage);
        assertTrue(failed.failure().getMessage().contains("was freed"), failed.failure()::getMessage);
        Waits.until(() -> fixture.pipeline.freeSlots() == fullSlots, TIMEOUT, "every slot back after the failure");
        port.expectNoMessage(QUIET);
    }

    @Test
    void shouldUnpackChunksOutOfTheSendersMemoryWithoutSlotsOfItsOwn()
    {
        final TestProbe<Fact> port = testKit.createTestProbe();
        final ByteBuffer typed = fixture.randomHost();
        final ByteBuffer poisoned = fixture.filledHost(POISON);
        final Allocation destination = fixture.toDevice(poisoned);
        final Allocation shared = fixture.runtime.allocatePinned(fixture.plan.packedBytes());
        try
        {
            final TransferHandle handle =
                fixture.pipeline.startReceive(fixture.spec(destination, new RecordingPort(port)), false);
            for (int chunk = fixture.plan.chunks() - 1; chunk >= 0; chunk--)
            {
                final long address = shared.address() + fixture.plan.offset(chunk);
                StageFixture.at(address, fixture.plan.length(chunk))
                    .putBytes(0, fixture.packedChunk(typed, chunk), 0, fixture.plan.length(chunk));
                handle.chunkArrived(chunk, address);
                assertEquals(chunk, port.expectMessageClass(ChunkUnpacked.class, TIMEOUT).chunk(),
                    "chunk " + chunk + " unpacked in place");
            }
            assertEquals(fullSlots, fixture.pipeline.freeSlots(), "no slot leased");
            assertEquals(-1, fixture.unpacked(typed, poisoned).mismatch(fixture.toHost(destination)),
                "every byte of the receive buffer: the datatype's unpacked, the others still poisoned");
        }
        finally
        {
            shared.free();
            destination.free();
        }
    }

    private long expectSlot(final TestProbe<Fact> port, final int chunk)
    {
        final ChunkSlot slot = port.expectMessageClass(ChunkSlot.class, TIMEOUT);
        assertEquals(chunk, slot.chunk(), "slots are offered for the chunks in order");
        return slot.hostAddress();
    }

    private void arrive(final TransferHandle handle, final ByteBuffer typed, final int chunk, final long slot)
    {
        StageFixture.at(slot, fixture.plan.length(chunk))
            .putBytes(0, fixture.packedChunk(typed, chunk), 0, fixture.plan.length(chunk));
        handle.chunkArrived(chunk, slot);
    }
}
