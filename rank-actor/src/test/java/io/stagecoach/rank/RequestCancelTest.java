package io.stagecoach.rank;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;

import io.stagecoach.protocol.ErrorClass;
import io.stagecoach.protocol.datatype.Datatype;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * MPI_Cancel of receives: a receive whose wait timed out stays posted and would take the next matching message;
 * cancelled, it completes as cancelled and the message goes to the next receive.
 */
class RequestCancelTest
{
    private static final Duration TIMEOUT = Duration.ofSeconds(20);

    @TempDir
    static Path directory;

    private static LocalJob job;

    @BeforeAll
    static void start()
    {
        job = LocalJob.start(directory, 2, context -> { });
    }

    @AfterAll
    static void stop()
    {
        job.close();
    }

    @Test
    void shouldLeaveAReceiveWhoseWaitTimedOutPostedUntilItIsCancelled()
    {
        final ByteBuffer abandoned = ByteBuffer.allocateDirect(4);
        final Request late = job.rank(0).irecv(abandoned, 1, Datatype.INT, 1, 5);
        assertEquals(ErrorClass.PENDING,
            assertThrows(RequestTimeoutException.class, () -> late.await(Duration.ofMillis(50))).errorClass());

        assertTrue(late.cancel());

        final Status status = late.await(TIMEOUT);
        assertTrue(status.isCancelled());
        assertNull(status.error());
        assertEquals(1, status.source());
        assertEquals(5, status.tag());
        assertFalse(late.cancel(), "a cancelled receive cannot be cancelled again");
        final ByteBuffer in = ByteBuffer.allocateDirect(4);
        final Request next = job.rank(0).irecv(in, 1, Datatype.INT, 1, 5);
        final ByteBuffer out = ByteBuffer.allocateDirect(4).putInt(0, 77);
        job.rank(1).send(out, 1, Datatype.INT, 0, 5);
        assertFalse(next.await(TIMEOUT).isCancelled());
        assertEquals(77, in.getInt(0));
        assertEquals(0, abandoned.getInt(0), "the cancelled receive took nothing");
    }

    @Test
    void shouldNotCancelACompletedReceiveOrASend()
    {
        final ByteBuffer in = ByteBuffer.allocateDirect(4);
        final Request receive = job.rank(1).irecv(in, 1, Datatype.INT, 0, 6);
        final Request send = job.rank(0).isend(ByteBuffer.allocateDirect(4).putInt(0, 9), 1, Datatype.INT, 1, 6);

        assertFalse(send.cancel(), "sends cannot be cancelled");
        assertEquals(1, receive.await(TIMEOUT).count());
        assertEquals(9, in.getInt(0));
        assertFalse(receive.cancel());
        assertFalse(receive.status().isCancelled());
        assertFalse(send.await(TIMEOUT).isCancelled());
    }
}
