package io.stagecoach.rank;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.TimeUnit;

import io.stagecoach.protocol.ErrorClass;
import io.stagecoach.protocol.datatype.Datatype;
import io.stagecoach.rank.engine.EngineCommand;
import io.stagecoach.rank.engine.ProgressEngine;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static io.stagecoach.rank.Communicator.ANY_SOURCE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A rank that crashes (its transport vanishes without a goodbye) or closes while others wait on it: every request
 * waiting on it fails within 2 s naming it; requests on other ranks go on. {@code RankProcessSystemTest} kills a
 * rank's process.
 */
class PeerFailureTest
{
    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    @TempDir
    Path directory;

    @Test
    void shouldFailEveryRequestWaitingOnARankThatCrashesWithin2Seconds()
    {
        try (LocalJob job = LocalJob.start(directory, 3, context -> context.eagerThresholdBytes(1024)))
        {
            final Communicator survivor = job.rank(0);
            final List<String> losses = new CopyOnWriteArrayList<>();
            survivor.engine().lossListener((rank, reason) -> losses.add(rank + " " + reason));
            final Request receive = survivor.irecv(ByteBuffer.allocateDirect(64), 16, Datatype.INT, 2, 1);
            final Request largeSend = survivor.isend(ByteBuffer.allocateDirect(1 << 20), 1 << 18, Datatype.INT, 2, 2);
            final Request anySource = survivor.irecv(ByteBuffer.allocateDirect(64), 16, Datatype.INT, ANY_SOURCE, 3);
            awaitUnexpectedAtRank2(job);

            final long stoppedNs = System.nanoTime();
            job.rank(2).runtime().crash();

            final PeerLostException lost = assertThrows(PeerLostException.class, () -> receive.await(TIMEOUT));
            final long failedAfterMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - stoppedNs);
            assertEquals(2, lost.peer());
            assertEquals(ErrorClass.PROC_FAILED, lost.errorClass());
            assertTrue(lost.getMessage().startsWith("rank 2 "), lost.getMessage());
            assertTrue(lost.getMessage().contains("irecv(source=2, tag=1"), lost.getMessage());
            assertThrows(PeerLostException.class, () -> largeSend.await(TIMEOUT));
            assertTrue(failedAfterMs < 2000, "failed after " + failedAfterMs + " ms");
            assertFalse(anySource.isDone(), "rank 1 may still send");
            assertEquals(1, losses.size(), losses::toString);
            assertTrue(losses.get(0).startsWith("2 "), losses::toString);

            final ByteBuffer in = ByteBuffer.allocateDirect(64);
            job.rank(1).send(ByteBuffer.allocateDirect(64), 16, Datatype.INT, 0, 3);
            assertEquals(1, anySource.await(TIMEOUT).source());
            final Request after = survivor.isend(ByteBuffer.allocateDirect(64), 16, Datatype.INT, 2, 4);
            assertThrows(PeerLostException.class, () -> after.await(TIMEOUT));
            final Request stillWorks = job.rank(1).irecv(in, 16, Datatype.INT, 0, 5);
            survivor.send(ByteBuffer.allocateDirect(64), 16, Datatype.INT, 1, 5);
            assertEquals(16, stillWorks.await(TIMEOUT).count());
        }
    }

    @Test
    void shouldFailRequestsWaitingOnARankThatClosesNamingIt()
    {
        try (LocalJob job = LocalJob.start(directory, 2, context -> { }))
        {
            final Request receive = job.rank(0).irecv(ByteBuffer.allocateDirect(8), 2, Datatype.INT, 1, 1);
            final Request anySource = job.rank(0).irecv(ByteBuffer.allocateDirect(8), 2, Datatype.INT, ANY_SOURCE, 1);
            final List<String> losses = new CopyOnWriteArrayList<>();
            job.rank(0).engine().lossListener((rank, reason) -> losses.add(rank + " " + reason));
            job.rank(1).close();
            final PeerLostException lost = assertThrows(PeerLostException.class, () -> receive.await(TIMEOUT));
            assertEquals("rank 1 closed its communicator: irecv(source=1, tag=1, count=2 x INT) pending",
                lost.getMessage());
            assertThrows(PeerLostException.class, () -> anySource.await(TIMEOUT));
            assertTrue(losses.isEmpty(), "a rank that closes is not lost: " + losses);
            final Request late = job.rank(1).isend(ByteBuffer.allocateDirect(8), 2, Datatype.INT, 0, 1);
            assertTrue(late.status().error().getMessage().contains("rank 1 closed its communicator"));
            final StagecoachException closed = assertThrows(StagecoachException.class, () -> job.rank(1).iprobe(0, 1));
            assertEquals("rank 1 closed its communicator", closed.getMessage());
            assertEquals(ErrorClass.COMM, closed.errorClass());
            assertThrows(StagecoachException.class, () -> job.rank(1).probe(0, 1));
            assertThrows(StagecoachException.class, () -> job.rank(1).allocate(64));
        }
    }

    @Test
    void shouldEndABlockingProbeWhenAnotherThreadClosesItsCommunicator() throws Exception
    {
        try (LocalJob job = LocalJob.start(directory, 2, context -> { }))
        {
            final CompletableFuture<Status> probe = CompletableFuture.supplyAsync(() -> job.rank(0).probe(1, 9));
            Thread.sleep(200);
            assertFalse(probe.isDone(), "nothing was sent with tag 9");

            job.rank(0).close();

            final ExecutionException ended = assertThrows(ExecutionException.class,
                () -> probe.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS));
            assertEquals("rank 0 closed its communicator", ended.getCause().getMessage());
        }
    }

    @Test
    void shouldLetTheAsyncErrorHandlerUseTheCommunicator() throws Exception
    {
        final AtomicReference<Communicator> sender = new AtomicReference<>();
        final CompletableFuture<String> handled = new CompletableFuture<>();
        try (LocalJob job = LocalJob.start(directory, 2, context -> context.asyncErrorHandler(error ->
        {
            // the error comes while the engine holds its lock: a send from here must still go
            final ByteBuffer note = ByteBuffer.allocateDirect(4).putInt(0, 7);
            sender.get().send(note, 1, Datatype.INT, 1, 78);
            handled.complete(error.getMessage());
        })))
        {
            sender.set(job.rank(0));
            final ByteBuffer note = ByteBuffer.allocateDirect(4);
            final Request noted = job.rank(1).irecv(note, 1, Datatype.INT, 0, 78);
            final Request truncated = job.rank(1).irecv(ByteBuffer.allocateDirect(4), 1, Datatype.INT, 0, 77);

            job.rank(0).send(ByteBuffer.allocateDirect(8), 2, Datatype.INT, 1, 77);

            assertThrows(RuntimeException.class, () -> truncated.await(TIMEOUT));
            assertTrue(handled.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS).contains("rank 1"), handled::toString);
            noted.await(TIMEOUT);
            assertEquals(7, note.getInt(0));
        }
    }

    @Test
    void shouldEndTheWaitOfAnInterruptedThreadAndLeaveTheRequestGoing() throws Exception
    {
        try (LocalJob job = LocalJob.start(directory, 2, context -> { }))
        {
            final ByteBuffer in = ByteBuffer.allocateDirect(4);
            final Request receive = job.rank(0).irecv(in, 1, Datatype.INT, 1, 79);
            final CompletableFuture<Throwable> ended = new CompletableFuture<>();
            final Thread waiter = new Thread(() ->
            {
                try
                {
                    receive.await(Duration.ofHours(1));
                    ended.complete(null);
                }
                catch (final RuntimeException ex)
                {
                    ended.complete(Thread.currentThread().isInterrupted() ? ex : new AssertionError("flag cleared"));
                }
            });
            waiter.start();
            Thread.sleep(200);

            waiter.interrupt();

            final Throwable error = ended.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            assertEquals(ErrorClass.PENDING, ((StagecoachException)error).errorClass());
            assertTrue(error.getMessage().contains("its thread was interrupted"), error::getMessage);
            job.rank(1).send(ByteBuffer.allocateDirect(4).putInt(0, 5), 1, Datatype.INT, 0, 79);
            receive.await(TIMEOUT);
            assertEquals(5, in.getInt(0));
            final Thread prober = new Thread(() -> job.rank(0).probe(1, 80));
            final AtomicReference<Throwable> probed = new AtomicReference<>();
            prober.setUncaughtExceptionHandler((thread, ex) -> probed.set(ex));
            prober.start();
            prober.interrupt();
            prober.join(TIMEOUT.toMillis());
            assertFalse(prober.isAlive(), "the probe ends too");
            assertTrue(probed.get() instanceof StagecoachException, () -> String.valueOf(probed.get()));
        }
    }

    @Test
    void shouldFailTheRequestOfACommandThatThrowsAnErrorAndGoOn()
    {
        try (LocalJob job = LocalJob.start(directory, 2, context -> { }))
        {
            final Request request = new Request(job.rank(0).engine(), "test", 1, 1, 0, Datatype.BYTE);
            job.rank(0).engine().submit(new EngineCommand()
            {
                public void execute(final ProgressEngine engine)
                {
                    throw new OutOfMemoryError("Cannot reserve 268435456 bytes of direct buffer memory (a test)");
                }

                public Request request()
                {
                    return request;
                }
            });

            final OutOfMemoryError error = assertThrows(OutOfMemoryError.class, () -> request.await(TIMEOUT));
            assertTrue(error.getMessage().contains("(a test)"), error::getMessage);
            final ByteBuffer in = ByteBuffer.allocateDirect(4);
            final Request receive = job.rank(1).irecv(in, 1, Datatype.INT, 0, 81);
            job.rank(0).send(ByteBuffer.allocateDirect(4).putInt(0, 3), 1, Datatype.INT, 1, 81);
            receive.await(TIMEOUT);
            assertEquals(3, in.getInt(0));
        }
    }

    private static void awaitUnexpectedAtRank2(final LocalJob job)
    {
        final long deadlineNs = System.nanoTime() + TIMEOUT.toNanos();
        while (job.rank(2).engine().counters(0)[2] < 1)
        {
            assertTrue(System.nanoTime() < deadlineNs, "the RTS reaches rank 2");
            Thread.onSpinWait();
        }
    }
}
