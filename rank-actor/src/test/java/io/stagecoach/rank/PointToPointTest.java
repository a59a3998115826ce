package io.stagecoach.rank;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import io.stagecoach.protocol.ErrorClass;
import io.stagecoach.protocol.datatype.Datatype;
import io.stagecoach.protocol.datatype.DatatypeException;
import io.stagecoach.protocol.datatype.Order;
import io.stagecoach.protocol.datatype.SignatureMismatchException;
import io.stagecoach.protocol.datatype.TruncationException;
import org.agrona.BufferUtil;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static io.stagecoach.rank.Communicator.ANY_SOURCE;
import static io.stagecoach.rank.Communicator.ANY_TAG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PointToPointTest
{
    private static final Duration TIMEOUT = Duration.ofSeconds(20);
    private static final int THRESHOLD = 1024;
    private static final List<Throwable> ASYNC_ERRORS = new CopyOnWriteArrayList<>();

    @TempDir
    static Path directory;

    private static LocalJob job;

    @BeforeAll
    static void start()
    {
        job = LocalJob.start(directory, 3, context -> context
            .eagerThresholdBytes(THRESHOLD)
            .eagerWindowBytes(16 * 1024)
            .asyncErrorHandler(ASYNC_ERRORS::add));
    }

    @AfterAll
    static void stop()
    {
        job.close();
    }

    @Test
    void shouldSendAndReceiveEagerMessage()
    {
        final ByteBuffer out = ints(16, i -> i * 7);
        final ByteBuffer in = direct(64);
        final long eagerBefore = job.rank(0).engine().counters(1)[0];

        final Request receive = comm(1).irecv(in, 16, Datatype.INT, 0, 5);
        final Status sent = comm(0).isend(out, 16, Datatype.INT, 1, 5).await(TIMEOUT);
        final Status status = receive.await(TIMEOUT);

        assertEquals(16, sent.count());
        assertEquals(0, status.source());
        assertEquals(5, status.tag());
        assertEquals(16, status.count());
        assertEquals(64, status.byteCount());
        assertEquals(out, in);
        assertEquals(eagerBefore + 1, job.rank(0).engine().counters(1)[0]);
    }

    @Test
    void shouldSendAndReceiveRendezvousMessage()
    {
        final int count = 300_000;
        final ByteBuffer out = direct(count * 8);
        final ByteBuffer in = direct(count * 8);
        for (int i = 0; i < count; i++)
        {
            out.putLong(i * 8, i * 31L + 7);
        }
        final long rendezvousBefore = job.rank(1).engine().counters(0)[1];

        final Request send = comm(1).isend(out, count, Datatype.LONG, 0, 9);
        final Status status = comm(0).recv(in, count, Datatype.LONG, 1, 9);
        send.await(TIMEOUT);

        assertEquals(count, status.count());
        assertEquals(out, in);
        assertEquals(rendezvousBefore + 1, job.rank(1).engine().counters(0)[1]);
    }

    @Test
    void shouldSendEmptyMessagesAndMessagesToSelf()
    {
        final Request empty = comm(2).irecv(direct(0), 0, Datatype.DOUBLE, 1, 0);
        comm(1).send(direct(0), 0, Datatype.DOUBLE, 2, 0);
        assertEquals(0, empty.await(TIMEOUT).count());

        final ByteBuffer out = ints(1000, i -> -i);
        final ByteBuffer in = direct(4000);
        final Request self = comm(2).irecv(in, 1000, Datatype.INT, 2, 3);
        comm(2).send(out, 1000, Datatype.INT, 2, 3);
        assertEquals(2, self.await(TIMEOUT).source());
        assertEquals(out, in);
    }

    @Test
    void shouldKeepNonOvertakingOrderPerSourceAndTagAcrossProtocols()
    {
        final int messages = 120;
        final Request[] sends = new Request[messages];
        for (int i = 0; i < messages; i++)
        {
            final int ints = i % 3 == 0 ? 2000 : 1 + i;
            final int sequence = i;
            sends[i] = comm(0).isend(ints(ints, k -> sequence), ints, Datatype.INT, 2, 40 + i % 2);
        }
        final int[] nextPerTag = { 0, 1 };
        for (int i = 0; i < messages; i++)
        {
            final ByteBuffer in = direct(8000);
            final int tag = i % 4 == 3 ? ANY_TAG : 40 + i % 2;
            final Status status = comm(2).recv(in, 2000, Datatype.INT, 0, tag);
            final int sequence = in.getInt(0);
            final int tagIndex = status.tag() - 40;
            assertEquals(nextPerTag[tagIndex], sequence, "message " + i + " on tag " + status.tag());
            nextPerTag[tagIndex] += 2;
            assertEquals(sequence % 3 == 0 ? 2000 : 1 + sequence, status.count());
        }
        for (final Status status : Request.waitAll(TIMEOUT, sends))
        {
            assertFalse(status.isError(), status::toString);
        }
    }

    @Test
    void shouldMatchWildcardsFromSeveralSources()
    {
        final Request fromOne = comm(1).isend(ints(4, i -> 1), 4, Datatype.INT, 0, 71);
        final Request fromTwo = comm(2).isend(ints(400, i -> 2), 400, Datatype.INT, 0, 72);
        int seen = 0;
        for (int i = 0; i < 2; i++)
        {
            final ByteBuffer in = direct(1600);
            final Status status = comm(0).recv(in, 400, Datatype.INT, ANY_SOURCE, ANY_TAG);
            assertEquals(status.source(), in.getInt(0));
            assertEquals(70 + status.source(), status.tag());
            assertEquals(status.source() == 1 ? 4 : 400, status.count());
            seen |= 1 << status.source();
        }
        assertEquals(6, seen);
        Request.waitAll(TIMEOUT, fromOne, fromTwo);
    }

    @Test
    void shouldReportTheCountOfAShortMessage()
    {
        final Datatype pair = Datatype.contiguous(2, Datatype.INT).commit();
        final Request partial = comm(0).irecv(direct(800), 100, pair, 1, 81);
        comm(1).send(ints(7, i -> i), 7, Datatype.INT, 0, 81);
        final Status status = partial.await(TIMEOUT);
        assertEquals(28, status.byteCount());
        assertEquals(Datatype.UNDEFINED, status.count());
        assertEquals(7, status.countOf(Datatype.INT));

        final Request whole = comm(0).irecv(direct(800), 100, pair, 1, 82);
        comm(1).send(ints(8, i -> i), 8, Datatype.INT, 0, 82);
        assertEquals(4, whole.await(TIMEOUT).count());
    }

    @Test
    void shouldFailATruncatingEagerReceiveAndLeaveTheNextMessageAlone()
    {
        final Request small = comm(1).irecv(direct(16), 4, Datatype.INT, 0, 91);
        comm(0).send(ints(8, i -> i), 8, Datatype.INT, 1, 91);
        final TruncationException error = assertThrows(TruncationException.class, () -> small.await(TIMEOUT));
        assertEquals("receive buffer holds 16 bytes, message has 32 (tag=91, source=0)", error.getMessage());
        awaitTrue("the sender is told of the rejected eager message",
            () -> ASYNC_ERRORS.stream().anyMatch(e -> e.getMessage().contains("receive buffer holds 16 bytes")));

        final ByteBuffer in = direct(32);
        comm(0).send(ints(8, i -> i + 100), 8, Datatype.INT, 1, 91);
        assertEquals(8, comm(1).recv(in, 8, Datatype.INT, 0, 91).count());
        assertEquals(107, in.getInt(28));
    }

    @Test
    void shouldFailATruncatingRendezvousOnBothSides()
    {
        final Request receive = comm(2).irecv(direct(4000), 1000, Datatype.INT, 1, 92);
        final Request send = comm(1).isend(ints(5000, i -> i), 5000, Datatype.INT, 2, 92);
        final TruncationException error = assertThrows(TruncationException.class, () -> receive.await(TIMEOUT));
        assertEquals("receive buffer holds 4000 bytes, message has 20000 (tag=92, source=1)", error.getMessage());
        assertEquals(ErrorClass.TRUNCATE, receive.status().errorClass());
        final StagecoachException sendError = assertThrows(StagecoachException.class, () -> send.await(TIMEOUT));
        assertEquals(ErrorClass.TRUNCATE, sendError.errorClass());
        assertTrue(sendError.getMessage().contains("rank 2 reported TRUNCATED"), sendError.getMessage());
        assertTrue(sendError.getMessage().contains("receive buffer holds 4000 bytes, message has 20000"));
    }

    @Test
    void shouldFailATypeMismatchOnBothSides()
    {
        final Request receive = comm(0).irecv(direct(80_000), 10_000, Datatype.LONG, 2, 93);
        final Request send = comm(2).isend(direct(80_000), 10_000, Datatype.DOUBLE, 0, 93);
        final SignatureMismatchException error =
            assertThrows(SignatureMismatchException.class, () -> receive.await(TIMEOUT));
        assertTrue(error.getMessage().contains("is not a prefix of the receive signature"), error.getMessage());
        assertTrue(error.getMessage().contains("10000 x LONG"), error.getMessage());
        final SignatureMismatchException sendError =
            assertThrows(SignatureMismatchException.class, () -> send.await(TIMEOUT));
        assertTrue(sendError.getMessage().contains("rank 0 rejected the message"), sendError.getMessage());

        final Request smallReceive = comm(0).irecv(direct(8), 2, Datatype.INT, 2, 94);
        final Request smallSend = comm(2).issend(direct(8), 2, Datatype.FLOAT, 0, 94);
        assertThrows(SignatureMismatchException.class, () -> smallReceive.await(TIMEOUT));
        assertThrows(SignatureMismatchException.class, () -> smallSend.await(TIMEOUT));
    }

    @Test
    void shouldCompleteASynchronousSendOnlyOnceMatched()
    {
        final Request send = comm(1).issend(ints(4, i -> i), 4, Datatype.INT, 2, 95);
        sleepMs(50);
        assertFalse(send.test());
        comm(2).recv(direct(16), 4, Datatype.INT, 1, 95);
        assertEquals(4, send.await(TIMEOUT).count());
    }

    @Test
    void shouldProbeWithoutReceiving()
    {
        assertTrue(comm(0).iprobe(1, 96).isEmpty());
        comm(1).send(ints(50, i -> i), 50, Datatype.INT, 0, 96);
        final Status probed = comm(0).probe(ANY_SOURCE, 96);
        assertEquals(1, probed.source());
        assertEquals(200, probed.byteCount());
        assertEquals(50, probed.countOf(Datatype.INT));
        assertTrue(comm(0).iprobe(1, ANY_TAG).isPresent());
        assertEquals(50, comm(0).recv(direct(200), 50, Datatype.INT, 1, 96).count());
        assertTrue(comm(0).iprobe(1, 96).isEmpty());

        comm(1).isend(direct(40_000), 10_000, Datatype.INT, 0, 97);
        assertEquals(40_000, comm(0).probe(1, 97).byteCount());
        comm(0).recv(direct(40_000), 10_000, Datatype.INT, 1, 97);
    }

    @Test
    void shouldTransferDerivedDatatypes()
    {
        final Datatype column = Datatype.vector(100, 1, 10, Datatype.DOUBLE).commit();
        final ByteBuffer grid = direct(100 * 10 * 8);
        for (int i = 0; i < 1000; i++)
        {
            grid.putDouble(i * 8, i);
        }
        final ByteBuffer packed = direct(800);
        final Request receive = comm(1).irecv(packed, 100, Datatype.DOUBLE, 0, 98);
        comm(0).send(grid.position(3 * 8).slice().order(ByteOrder.LITTLE_ENDIAN), 1, column, 1, 98);
        assertEquals(100, receive.await(TIMEOUT).count());
        for (int i = 0; i < 100; i++)
        {
            assertEquals(i * 10 + 3, packed.getDouble(i * 8));
        }

        final Datatype face = Datatype.subarray(new int[]{ 64, 64, 64 }, new int[]{ 62, 62, 1 },
            new int[]{ 1, 1, 5 }, Order.C, Datatype.FLOAT).commit();
        final ByteBuffer cube = direct(64 * 64 * 64 * 4);
        for (int i = 0; i < 64 * 64 * 64; i++)
        {
            cube.putFloat(i * 4, i);
        }
        final ByteBuffer target = direct(64 * 64 * 64 * 4);
        final Request faceIn = comm(2).irecv(target, 1, face, 0, 99);
        comm(0).send(cube, 1, face, 2, 99);
        assertEquals(1, faceIn.await(TIMEOUT).count());
        for (int i = 1; i < 63; i++)
        {
            final int index = (i * 64 + 7) * 64 + 5;
            assertEquals(index, target.getFloat(index * 4));
        }
        assertEquals(0, target.getFloat((64 + 1) * 64 * 4 + 4 * 4));
    }

    @Test
    void shouldHonourNegativeLowerBounds()
    {
        final Datatype backwards = Datatype.hindexed(new int[]{ 1, 1 }, new long[]{ -8, 0 }, Datatype.LONG).commit();
        final ByteBuffer out = direct(16);
        out.putLong(0, 11).putLong(8, 22);
        final ByteBuffer in = direct(16);
        final Request receive = comm(1).irecv(in.position(8), 1, backwards, 2, 100);
        comm(2).send(out.position(8), 1, backwards, 1, 100);
        assertEquals(1, receive.await(TIMEOUT).count());
        assertEquals(11, in.getLong(0));
        assertEquals(22, in.getLong(8));
        out.position(0);
        in.position(0);
    }

    @Test
    void shouldFailBadArgumentsWithoutDisturbingAnything()
    {
        final Communicator comm = comm(0);
        assertFails(comm.isend(direct(4), 1, Datatype.INT, 3, 0), IllegalArgumentException.class,
            "destination rank 3 is outside [0, 3)");
        assertFails(comm.irecv(direct(4), 1, Datatype.INT, -2, 0), IllegalArgumentException.class,
            "source rank -2 is outside [0, 3)");
        assertFails(comm.isend(direct(4), 1, Datatype.INT, 1, -1), IllegalArgumentException.class,
            "tag -1 is negative (only a receive may use ANY_TAG)");
        assertFails(comm.irecv(direct(4), 1, Datatype.INT, 1, -5), IllegalArgumentException.class,
            "tag -5 is negative and is not ANY_TAG (-1)");
        assertFails(comm.isend(direct(4), -1, Datatype.INT, 1, 0), IllegalArgumentException.class,
            "count -1 is negative");
        assertFails(comm.isend(direct(4), 2, Datatype.INT, 1, 0), IllegalArgumentException.class,
            "send buffer of 4 bytes is too small for 2 x INT: the data spans bytes [0, 8) of it");
        assertFails(comm.irecv(direct(16).position(1), Long.MAX_VALUE, Datatype.BYTE, 1, 0),
            IllegalArgumentException.class, "receive buffer of 16 bytes is too small for 9223372036854775807 x BYTE: " +
            "the data spans bytes [1, 9223372036854775808) of it");
        assertFails(comm.irecv(ByteBuffer.allocate(4), 1, Datatype.INT, 1, 0), IllegalArgumentException.class,
            "receive buffer must be a direct ByteBuffer");
        assertFails(comm.isend(0, 4, 1, Datatype.INT, 1, 0), IllegalArgumentException.class, "address is null");
        assertFails(comm.isend((ByteBuffer)null, 1, Datatype.INT, 1, 0), IllegalArgumentException.class,
            "send buffer is null (a ByteBuffer was expected)");
        assertFails(comm.irecv((io.stagecoach.device.Allocation)null, 1, Datatype.INT, 1, 0),
            IllegalArgumentException.class, "receive buffer is null (an Allocation was expected)");
        final Datatype uncommitted = Datatype.vector(2, 1, 2, Datatype.INT);
        assertFails(comm.isend(direct(64), 1, uncommitted, 1, 0), DatatypeException.class, "is not committed");
        final Datatype freed = Datatype.contiguous(3, Datatype.INT).commit();
        freed.free();
        assertFails(comm.irecv(direct(64), 1, freed, 1, 0), DatatypeException.class, "freed");

        assertEquals(ErrorClass.RANK, comm.isend(direct(4), 1, Datatype.INT, 3, 0).status().errorClass());
        assertEquals(ErrorClass.TAG, comm.irecv(direct(4), 1, Datatype.INT, 1, -5).status().errorClass());
        assertEquals(ErrorClass.COUNT, comm.isend(direct(4), -1, Datatype.INT, 1, 0).status().errorClass());
        assertEquals(ErrorClass.BUFFER, comm.isend(direct(4), 2, Datatype.INT, 1, 0).status().errorClass());
        assertEquals(ErrorClass.TYPE, comm.isend(direct(64), 1, uncommitted, 1, 0).status().errorClass());
        assertEquals(ErrorClass.TYPE, comm.irecv(direct(64), 1, freed, 1, 0).status().errorClass());

        final ByteBuffer in = direct(4);
        final Request receive = comm(1).irecv(in, 1, Datatype.INT, 0, 101);
        comm.send(ints(1, i -> 4242), 1, Datatype.INT, 1, 101);
        receive.await(TIMEOUT);
        assertEquals(4242, in.getInt(0));
    }

    @Test
    void shouldSendAndReceiveThroughRawAddresses()
    {
        final ByteBuffer out = ints(5000, i -> i ^ 0x5A5A);
        final ByteBuffer in = direct(20_000);
        final Request receive = comm(2).irecv(BufferUtil.address(in), 20_000, 5000, Datatype.INT, 0, 102);
        comm(0).send(BufferUtil.address(out), 20_000, 5000, Datatype.INT, 2, 102);
        assertEquals(5000, receive.await(TIMEOUT).count());
        assertEquals(out, in);
    }

    @Test
    void shouldOfferCompletionStagesAndWaitAny() throws Exception
    {
        final Request receive = comm(0).irecv(direct(8), 2, Datatype.INT, 1, 103);
        final Request other = comm(0).irecv(direct(8), 2, Datatype.INT, 2, 104);
        final CompletableFuture<Integer> source = receive.thenApply(Status::source).toCompletableFuture();
        comm(1).send(ints(2, i -> i), 2, Datatype.INT, 0, 103);
        assertEquals(0, Request.waitAny(TIMEOUT, receive, other));
        assertEquals(1, source.get(10, TimeUnit.SECONDS));
        assertFalse(other.isDone());
        assertThrows(RequestTimeoutException.class, () -> other.await(Duration.ofMillis(50)));
        assertEquals("1 of 2 requests did not complete within 50 ms, first: " + other, assertThrows(
            RequestTimeoutException.class, () -> Request.waitAll(Duration.ofMillis(50), receive, other)).getMessage());
        assertEquals("timeout PT-0.001S is negative (Duration.ZERO tests once, a longer one waits)", assertThrows(
            InvalidArgumentException.class, () -> other.await(Duration.ofMillis(-1))).getMessage());
        assertEquals("timeout is null (Duration.ZERO tests once, a longer one waits)", assertThrows(
            InvalidArgumentException.class, () -> Request.waitAny(null, other)).getMessage());

        final CompletableFuture<Status> failed = comm(0).isend(direct(4), 1, Datatype.INT, 9, 0)
            .toCompletableFuture();
        assertTrue(failed.isCompletedExceptionally());

        comm(2).send(ints(2, i -> i), 2, Datatype.INT, 0, 104);
        final Status[] statuses = Request.waitAll(Duration.ofSeconds(Long.MAX_VALUE), receive, other);
        assertEquals(0, Request.waitAny(java.time.temporal.ChronoUnit.FOREVER.getDuration(), other));
        assertEquals(2, statuses[1].source());
    }

    @Test
    void shouldExchangeInARingWithSendrecv()
    {
        final Status[] statuses = new Status[3];
        final ByteBuffer[] received = new ByteBuffer[3];
        final Thread[] threads = new Thread[3];
        for (int r = 0; r < 3; r++)
        {
            final int rank = r;
            threads[r] = new Thread(() ->
            {
                received[rank] = direct(40_000);
                statuses[rank] = comm(rank).sendrecv(ints(10_000, i -> rank), 10_000, Datatype.INT, (rank + 1) % 3,
                    105, received[rank], 10_000, Datatype.INT, (rank + 2) % 3, 105);
            });
            threads[r].start();
        }
        for (final Thread thread : threads)
        {
            join(thread);
        }
        for (int r = 0; r < 3; r++)
        {
            assertEquals((r + 2) % 3, statuses[r].source());
            assertEquals((r + 2) % 3, received[r].getInt(39_996));
        }
    }

    @Test
    void shouldFallBackToRendezvousWhenEagerCreditRunsOutAndNeverBufferLargeMessages()
    {
        final long[] before = job.rank(1).engine().counters(2);
        final int messages = 60;
        final Request[] sends = new Request[messages];
        for (int i = 0; i < messages; i++)
        {
            final int value = i;
            sends[i] = comm(1).isend(ints(200, k -> value), 200, Datatype.INT, 2, 106);
        }
        final Request large = comm(1).isend(direct(4 << 20), 1 << 20, Datatype.INT, 2, 107);
        awaitTrue("every message reaches rank 2 as eager or RTS",
            () -> job.rank(2).engine().counters(1)[2] >= messages + 1);
        final long[] receiver = job.rank(2).engine().counters(1);
        assertTrue(receiver[3] <= 16 * 1024, "unexpected payload bytes " + receiver[3] + " within the window");
        assertFalse(large.isDone(), "a large send completes only after its receive is posted");
        final long[] after = job.rank(1).engine().counters(2);
        assertTrue(after[1] - before[1] > 1, "some sends fell back to rendezvous: " + (after[1] - before[1]));
        assertTrue(after[0] - before[0] > 1, "some sends went eagerly: " + (after[0] - before[0]));

        for (int i = 0; i < messages; i++)
        {
            final ByteBuffer in = direct(800);
            comm(2).recv(in, 200, Datatype.INT, 1, 106);
            assertEquals(i, in.getInt(796));
        }
        comm(2).recv(direct(4 << 20), 1 << 20, Datatype.INT, 1, 107);
        Request.waitAll(TIMEOUT, sends);
        large.await(TIMEOUT);
        awaitTrue("eager credit returns", () -> job.rank(1).engine().counters(2)[5] >= 12 * 1024);
    }

    private static Communicator comm(final int rank)
    {
        return job.rank(rank);
    }

    private static ByteBuffer direct(final int bytes)
    {
        return ByteBuffer.allocateDirect(bytes).order(ByteOrder.LITTLE_ENDIAN);
    }

    private static ByteBuffer ints(final int count, final java.util.function.IntUnaryOperator value)
    {
        final ByteBuffer buffer = direct(count * 4);
        for (int i = 0; i < count; i++)
        {
            buffer.putInt(i * 4, value.applyAsInt(i));
        }
        return buffer;
    }

    private static void assertFails(final Request request, final Class<? extends Throwable> type, final String text)
    {
        assertTrue(request.isDone(), request::toString);
        final Throwable error = request.status().error();
        assertInstanceOf(type, error, () -> String.valueOf(error));
        assertTrue(error.getMessage().contains(text), () -> "'" + error.getMessage() + "' lacks '" + text + "'");
    }

    private static void awaitTrue(final String what, final java.util.function.BooleanSupplier condition)
    {
        final long deadlineNs = System.nanoTime() + TIMEOUT.toNanos();
        while (!condition.getAsBoolean())
        {
            if (System.nanoTime() > deadlineNs)
            {
                throw new AssertionError("timed out waiting until " + what);
            }
            sleepMs(1);
        }
    }

    private static void sleepMs(final long millis)
    {
        try
        {
            Thread.sleep(millis);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }

    private static void join(final Thread thread)
    {
        try
        {
            thread.join(TIMEOUT.toMillis());
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
        assertFalse(thread.isAlive(), thread.getName() + " still running");
    }
}
