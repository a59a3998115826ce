package io.stagecoach.rank;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import io.stagecoach.device.DeviceContext;
import io.stagecoach.device.DeviceKind;
import io.stagecoach.device.DeviceRuntime;
import io.stagecoach.device.RandomTypes;
import io.stagecoach.device.TestMemory;
import io.stagecoach.protocol.datatype.Datatype;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Large device messages through the stage pipeline when things go wrong, on both wires, two ranks of a
 * {@link LocalJob} on two emulated devices: a rank that crashes in the middle of a transfer fails the survivor's
 * request within 2 s naming it, and every slot of the survivor's pools comes back; a send whose receive is posted late
 * holds no more than its transfer's slots while its RTS waits unexpected, then completes; a receiver that closes in the
 * middle of a transfer fails its own request and the sender's, without a hang, and the sender's slots come back.
 */
class PipelineFaultTest
{
    private static final Duration TIMEOUT = Duration.ofSeconds(10);
    private static final int CHUNK_BYTES = 4096;
    private static final int SLOTS = 2;
    private static final int LARGE_BYTES = 32 << 20;
    private static final long SEED = RandomTypes.seed("PipelineFaultTest");

    @TempDir
    Path directory;

    private static DeviceRuntime device;

    @BeforeAll
    static void open()
    {
        device = DeviceRuntime.open(new DeviceContext().kind(DeviceKind.EMULATED).emulatedDeviceCount(2)
            .emulatedMemoryBytes(256L << 20));
    }

    @AfterAll
    static void close()
    {
        device.close();
    }

    @ParameterizedTest(name = "{0} wire, the {1} crashes")
    @CsvSource({ "arena, receiver", "arena, sender", "stream, receiver", "stream, sender" })
    void shouldFailTheSurvivorsRequestWithin2SecondsNamingTheRankThatCrashedAndGiveItsSlotsBack(
        final String wire, final String crashes)
    {
        final int crashed = crashes.equals("sender") ? 0 : 1;
        final int survivor = 1 - crashed;
        try (LocalJob job = start(wire);
             TestMemory from = TestMemory.device(device, 0, LARGE_BYTES);
             TestMemory to = TestMemory.device(device, 1, LARGE_BYTES))
        {
            final int fullSlots = freeSlots(job, survivor);
            final Request receive = job.rank(1).irecv(to.address(), LARGE_BYTES, LARGE_BYTES, Datatype.BYTE, 0, 1);
            final Request send = job.rank(0).isend(from.address(), LARGE_BYTES, LARGE_BYTES, Datatype.BYTE, 1, 1);
            awaitTrue(() -> chunksUnderWay(job, wire), "the transfer to be under way on both sides");
            assertFalse(receive.isDone(), "the transfer is still in the middle");

            final long crashedNs = System.nanoTime();
            job.rank(crashed).runtime().crash();

            final Request survivors = survivor == 0 ? send : receive;
            final PeerLostException lost = assertThrows(PeerLostException.class, () -> survivors.await(TIMEOUT));
            final long failedAfterMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - crashedNs);
            assertEquals(crashed, lost.peer(), lost::getMessage);
            assertTrue(lost.getMessage().startsWith("rank " + crashed + " "), lost.getMessage());
            assertTrue(failedAfterMs < 2000, "failed after " + failedAfterMs + " ms");
            awaitTrue(() -> freeSlots(job, survivor) == fullSlots, "every pool slot of rank " + survivor + " back");
        }
    }

    @ParameterizedTest(name = "{0} wire")
    @ValueSource(strings = { "arena", "stream" })
    void shouldHoldAtMostTheTransfersSlotsWhileTheReceiveIsPostedLateThenComplete(final String wire)
    {
        final int lengthBytes = 2 << 20;
        try (LocalJob job = start(wire);
             TestMemory from = TestMemory.device(device, 0, lengthBytes);
             TestMemory to = TestMemory.device(device, 1, lengthBytes))
        {
            final int fullSlots = freeSlots(job, 0);
            final ByteBuffer content = randomBytes(lengthBytes);
            from.write(content);
            final Request send = job.rank(0).isend(from.address(), lengthBytes, lengthBytes, Datatype.BYTE, 1, 2);
            awaitTrue(() -> job.rank(1).engine().counters(0)[2] == 1, "the RTS to wait unexpected at rank 1");
            awaitTrue(() -> fullSlots - freeSlots(job, 0) == SLOTS, "the send to pack its first chunks ahead");
            final long untilNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(300);
            while (System.nanoTime() - untilNs < 0)
            {
                assertEquals(SLOTS, fullSlots - freeSlots(job, 0), "slots the waiting send holds");
                assertFalse(send.isDone(), "the send waits for its receive");
            }

            final Request receive = job.rank(1).irecv(to.address(), lengthBytes, lengthBytes, Datatype.BYTE, 0, 2);
            assertEquals(lengthBytes, receive.await(TIMEOUT).count(), "bytes received");
            send.await(TIMEOUT);
            assertEquals(-1, content.mismatch(to.read()), "every byte arrived");
            awaitTrue(() -> freeSlots(job, 0) == fullSlots && freeSlots(job, 1) == fullSlots,
                "every pool slot of both ranks back");
        }
    }

    @ParameterizedTest(name = "{0} wire")
    @ValueSource(strings = { "arena", "stream" })
    void shouldFailBothRequestsWithoutAHangWhenTheReceiverClosesInTheMiddle(final String wire) throws Exception
    {
        try (LocalJob job = start(wire);
             TestMemory from = TestMemory.device(device, 0, LARGE_BYTES);
             TestMemory to = TestMemory.device(device, 1, LARGE_BYTES))
        {
            final int fullSlots = freeSlots(job, 0);
            final Request receive = job.rank(1).irecv(to.address(), LARGE_BYTES, LARGE_BYTES, Datatype.BYTE, 0, 3);
            final Request send = job.rank(0).isend(from.address(), LARGE_BYTES, LARGE_BYTES, Datatype.BYTE, 1, 3);
            awaitTrue(() -> chunksUnderWay(job, wire), "the transfer to be under way on both sides");
            assertFalse(receive.isDone(), "the transfer is still in the middle");

            CompletableFuture.runAsync(() -> job.rank(1).close()).get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);

            final StagecoachException closed = assertThrows(StagecoachException.class, () -> receive.await(TIMEOUT));
            assertTrue(closed.getMessage().startsWith("rank 1 closed its communicator"), closed.getMessage());
            final PeerLostException gone = assertThrows(PeerLostException.class, () -> send.await(TIMEOUT));
            assertEquals(1, gone.peer(), gone::getMessage);
            assertTrue(gone.getMessage().startsWith("rank 1 closed its communicator"), gone.getMessage());
            awaitTrue(() -> freeSlots(job, 0) == fullSlots, "every pool slot of the sender back");
        }
    }

    /**
     * Sends that wait unexpected pack ahead into at most half the pool, so that a later send whose receive is posted
     * first still gets slots: an MPI program that receives the later message before the earlier ones ends (when the
     * unmatched sends could take the whole pool, the third send waited for a slot forever).
     */
    @ParameterizedTest(name = "{0} wire")
    @ValueSource(strings = { "arena", "stream" })
    void shouldCompleteAMatchedSendWhileUnmatchedSendsWait(final String wire)
    {
        final int lengthBytes = 64 * CHUNK_BYTES;
        try (LocalJob job = LocalJob.start(directory, 2, context -> context.eagerThresholdBytes(1024)
            .deviceRuntime(device).chunkBytes(CHUNK_BYTES).pipelineSlots(SLOTS).pipelinePoolSlots(2 * SLOTS)
            .pipelineWire(wire).devicePath("staged"));
             TestMemory first = TestMemory.device(device, 0, lengthBytes);
             TestMemory second = TestMemory.device(device, 0, lengthBytes);
             TestMemory third = TestMemory.device(device, 0, lengthBytes);
             TestMemory to = TestMemory.device(device, 1, lengthBytes))
        {
            final int fullSlots = freeSlots(job, 0);
            final Request firstSend = job.rank(0).isend(first.address(), lengthBytes, lengthBytes, Datatype.BYTE, 1, 1);
            final Request secondSend = job.rank(0).isend(second.address(), lengthBytes, lengthBytes, Datatype.BYTE, 1, 2);
            awaitTrue(() -> fullSlots - freeSlots(job, 0) == SLOTS, "the unmatched sends to hold half the pool");
            final long heldUntilNs = System.nanoTime() + 200_000_000L;
            while (System.nanoTime() - heldUntilNs < 0)
            {
                assertEquals(SLOTS, fullSlots - freeSlots(job, 0), "slots the unmatched sends hold");
                Thread.yield();
            }
            final Request thirdSend = job.rank(0).isend(third.address(), lengthBytes, lengthBytes, Datatype.BYTE, 1, 3);
            for (final int tag : new int[]{ 3, 1, 2 })
            {
                assertEquals(lengthBytes, job.rank(1).irecv(to.address(), lengthBytes, lengthBytes, Datatype.BYTE, 0,
                    tag).await(TIMEOUT).count(), "bytes of the message of tag " + tag);
            }
            Request.waitAll(TIMEOUT, firstSend, secondSend, thirdSend);
        }
    }

    /**
     * A window of sends, as a bandwidth benchmark posts them: their actors take slots in whatever order they run,
     * not in the order of their CTS, so a send early in the line may wait for a slot that sends behind it hold; the
     * engine streams past it rather than waiting for it (it waited, and the window never ended).
     */
    @ParameterizedTest(name = "{0} wire")
    @ValueSource(strings = { "arena", "stream" })
    void shouldCompleteAWindowOfSendsWhateverTheOrderTheyTakeTheirSlotsIn(final String wire)
    {
        final int window = 32;
        final int lengthBytes = 4 * CHUNK_BYTES;
        try (LocalJob job = start(wire);
             TestMemory from = TestMemory.device(device, 0, window * lengthBytes);
             TestMemory to = TestMemory.device(device, 1, window * lengthBytes))
        {
            for (int round = 0; round < 10; round++)
            {
                final Request[] requests = new Request[2 * window];
                for (int i = 0; i < window; i++)
                {
                    requests[i] = job.rank(1).irecv(to.address() + (long)i * lengthBytes, lengthBytes, lengthBytes,
                        Datatype.BYTE, 0, 100 + round);
                }
                for (int i = 0; i < window; i++)
                {
                    requests[window + i] = job.rank(0).isend(from.address() + (long)i * lengthBytes, lengthBytes,
                        lengthBytes, Datatype.BYTE, 1, 100 + round);
                }
                Request.waitAll(TIMEOUT, requests);
            }
            final int fullSlots = freeSlots(job, 1);
            awaitTrue(() -> freeSlots(job, 0) == fullSlots, "every pool slot of the sender back");
        }
    }

    private LocalJob start(final String wire)
    {
        return LocalJob.start(directory, 2, context -> context.eagerThresholdBytes(1024).deviceRuntime(device)
            .chunkBytes(CHUNK_BYTES).pipelineSlots(SLOTS).pipelineWire(wire).devicePath("staged"));
    }

    /**
     * @return true once both ranks started their side of the transfer and some chunks crossed.
     */
    private static boolean chunksUnderWay(final LocalJob job, final String wire)
    {
        final boolean started = job.rank(0).engine().device().transfersStarted() == 1 &&
            job.rank(1).engine().device().transfersStarted() == 1;
        return started && (wire.equals("stream") || job.rank(1).engine().counters(0)[9] >= 8);
    }

    private static int freeSlots(final LocalJob job, final int rank)
    {
        return job.rank(rank).engine().device().freeSlots();
    }

    private static ByteBuffer randomBytes(final int lengthBytes)
    {
        final byte[] bytes = new byte[lengthBytes];
        new RandomTypes(SEED).nextBytes(bytes);
        return ByteBuffer.allocateDirect(lengthBytes).put(bytes).clear();
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
