package io.stagecoach.pipeline.stage;

import java.nio.ByteBuffer;
import java.time.Duration;

import io.stagecoach.device.Allocation;
import io.stagecoach.device.pool.BufferSlot;
import io.stagecoach.pipeline.stage.RecordingPort.ChunkPacked;
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

import static io.stagecoach.pipeline.stage.StageFixture.POOL_SLOTS;
import static io.stagecoach.pipeline.stage.StageFixture.TRANSFER_SLOTS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The send actor on the emulated device, its port a probe: it packs as many chunks ahead as its slots allow and no
 * more until the engine sends one, packs the next into the slot freed, gives every slot back at its end, holds its
 * slots through a cancel until the device work in flight is done, and reports a device failure once.
 */
@ExtendWith(TestKitJUnit5Extension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SendTransferTest
{
    private static final Duration TIMEOUT = Duration.ofSeconds(10);
    private static final Duration QUIET = Duration.ofMillis(300);

    @JUnit5TestKit
    public ActorTestKit testKit = new JUnit5TestKitBuilder().build();

    private StageFixture fixture;
    private int fullSlots;

    @BeforeAll
    void open()
    {
        fixture = new StageFixture(testKit.system(), "SendTransferTest");
        fullSlots = fixture.pipeline.freeSlots();
    }

    @AfterAll
    void close()
    {
        fixture.close();
    }

    @Test
    void shouldPackAheadUpToItsSlotsAndNoFurtherUntilAChunkIsSent()
    {
        final TestProbe<Fact> port = testKit.createTestProbe();
        final ByteBuffer typed = fixture.randomHost();
        final Allocation source = fixture.toDevice(typed);
        try
        {
            final TransferHandle handle = fixture.pipeline.startSend(fixture.spec(source, new RecordingPort(port)));
            handle.matched();
            final long[] slotOf = new long[fixture.plan.chunks()];
            for (int chunk = 0; chunk < TRANSFER_SLOTS; chunk++)
            {
                slotOf[chunk] = expectPacked(port, typed, chunk);
            }
            port.expectNoMessage(QUIET);
            assertEquals(fullSlots - TRANSFER_SLOTS, fixture.pipeline.freeSlots(), "slots leased by the send");

            for (int chunk = 0; chunk < fixture.plan.chunks(); chunk++)
            {
                handle.chunkSent(chunk);
                final int next = chunk + TRANSFER_SLOTS;
                if (next < fixture.plan.chunks())
                {
                    slotOf[next] = expectPacked(port, typed, next);
                    assertEquals(slotOf[chunk], slotOf[next], "chunk " + next + " packed into the slot chunk " +
                        chunk + " left");
                }
                port.expectNoMessage(Duration.ofMillis(20));
            }
            Waits.until(() -> fixture.pipeline.freeSlots() == fullSlots, TIMEOUT, "every slot back after the last chunk");
            port.expectNoMessage(QUIET);
        }
        finally
        {
            source.free();
        }
    }

    @Test
    void shouldPackAheadOnlyIntoTheUnmatchedShareOfThePoolUntilMatched()
    {
        final TestProbe<Fact> port = testKit.createTestProbe();
        final ByteBuffer typed = fixture.randomHost();
        final Allocation source = fixture.toDevice(typed);
        try
        {
            final TransferHandle handle = fixture.pipeline.startSend(fixture.spec(source, new RecordingPort(port)));
            final int share = POOL_SLOTS / 2;
            for (int chunk = 0; chunk < share; chunk++)
            {
                expectPacked(port, typed, chunk);
            }
            port.expectNoMessage(QUIET);
            assertEquals(fullSlots - share, fixture.pipeline.freeSlots(), "slots an unmatched send leases");
            assertNull(fixture.pipeline.tryLeaseAhead(false), "no slot ahead beyond the unmatched share");

            handle.matched();
            for (int chunk = share; chunk < TRANSFER_SLOTS; chunk++)
            {
                expectPacked(port, typed, chunk);
            }
            port.expectNoMessage(QUIET);
            assertEquals(fullSlots - TRANSFER_SLOTS, fixture.pipeline.freeSlots(), "slots leased once matched");
            final BufferSlot ahead = fixture.pipeline.tryLeaseAhead(false);
            assertNotNull(ahead, "the unmatched share is free again once the send is matched");
            ahead.release();
            fixture.pipeline.aheadDone(false, 1);

            handle.cancel();
            Waits.until(() -> fixture.pipeline.freeSlots() == fullSlots, TIMEOUT, "every slot back after the cancel");
        }
        finally
        {
            source.free();
        }
    }

    @Test
    void shouldHoldItsSlotsThroughACancelUntilTheDeviceWorkInFlightIsDone()
    {
        final TestProbe<Fact> port = testKit.createTestProbe();
        final Allocation source = fixture.toDevice(fixture.randomHost());
        try
        {
            fixture.pump.hold();
            final TransferHandle handle = fixture.pipeline.startSend(fixture.spec(source, new RecordingPort(port)));
            handle.matched();
            Waits.until(() -> fixture.pipeline.freeSlots() == fullSlots - TRANSFER_SLOTS, TIMEOUT,
                "the send to lease its slots and pack into them");

            handle.cancel();
            Waits.stays(fullSlots - TRANSFER_SLOTS, fixture.pipeline::freeSlots, QUIET,
                "slots stay leased while their packs are in flight");
            fixture.pump.release();
            Waits.until(() -> fixture.pipeline.freeSlots() == fullSlots, TIMEOUT,
                "every slot back once the packs in flight completed");
            port.expectNoMessage(QUIET);
        }
        finally
        {
            fixture.pump.release();
            source.free();
        }
    }

    @Test
    void shouldCancelWhileItWaitsForAChunkToBeSent()
    {
        final TestProbe<Fact> port = testKit.createTestProbe();
        final ByteBuffer typed = fixture.randomHost();
        final Allocation source = fixture.toDevice(typed);
        try
        {
            final TransferHandle handle = fixture.pipeline.startSend(fixture.spec(source, new RecordingPort(port)));
            handle.matched();
            for (int chunk = 0; chunk < TRANSFER_SLOTS; chunk++)
            {
                expectPacked(port, typed, chunk);
            }
            handle.chunkSent(0);
            expectPacked(port, typed, TRANSFER_SLOTS);

            handle.cancel();
            handle.cancel();
            Waits.until(() -> fixture.pipeline.freeSlots() == fullSlots, TIMEOUT, "every slot back after the cancel");
            port.expectNoMessage(QUIET);
        }
        finally
        {
            source.free();
        }
    }

    @Test
    void shouldReportAPackThatFailsOnceAndGiveEverySlotBack()
    {
        final TestProbe<Fact> port = testKit.createTestProbe();
        final Allocation source = fixture.toDevice(fixture.randomHost());
        source.free();

        fixture.pipeline.startSend(fixture.spec(source, new RecordingPort(port))).matched();

        final TransferFailed failed = port.expectMessageClass(TransferFailed.class, TIMEOUT);
        assertInstanceOf(StagingException.class, failed.failure());
        assertTrue(failed.failure().getMessage().startsWith("packing chunk 0 of transfer "), failed.failure()::getMessage);
        assertTrue(failed.failure().getMessage().contains("was freed"), failed.failure()::getMessage);
        Waits.until(() -> fixture.pipeline.freeSlots() == fullSlots, TIMEOUT, "every slot back after the failure");
        port.expectNoMessage(QUIET);
    }

    /**
     * @return the slot the chunk was packed into, once its bytes there are checked.
     */
    private long expectPacked(final TestProbe<Fact> port, final ByteBuffer typed, final int chunk)
    {
        final ChunkPacked packed = port.expectMessageClass(ChunkPacked.class, TIMEOUT);
        assertEquals(chunk, packed.chunk(), "chunks are packed in order");
        final ByteBuffer expected = fixture.packedChunk(typed, chunk);
        final ByteBuffer inSlot = ByteBuffer.allocateDirect(fixture.plan.length(chunk));
        StageFixture.at(packed.hostAddress(), fixture.plan.length(chunk)).getBytes(0, inSlot, fixture.plan.length(chunk));
        assertEquals(-1, expected.clear().mismatch(inSlot.clear()), "packed bytes of chunk " + chunk);
        return packed.hostAddress();
    }
}
