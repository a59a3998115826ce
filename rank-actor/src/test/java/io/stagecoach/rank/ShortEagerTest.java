package io.stagecoach.rank;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.time.Duration;

import io.stagecoach.protocol.datatype.Datatype;
import io.stagecoach.protocol.datatype.SignatureMismatchException;
import io.stagecoach.protocol.datatype.TruncationException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * Standard-mode sends of at most 8 bytes go as EAGER_SHORT, one cache line with their frame: many in a row stay
 * eager (the credit they take comes back without riding on them), an unexpected one is matched later, an empty one
 * arrives, and truncation and a signature mismatch are caught as for any eager message.
 */
class ShortEagerTest
{
    private static final Duration TIMEOUT = Duration.ofSeconds(20);
    private static final int EAGER_SENDS = 0;
    private static final int RENDEZVOUS_SENDS = 1;

    @TempDir
    Path directory;

    private static ByteBuffer longs(final long value)
    {
        return ByteBuffer.allocateDirect(8).order(ByteOrder.nativeOrder()).putLong(0, value);
    }

    @Test
    void shouldStayEagerOverManyMessagesAndMatchLateOnes()
    {
        try (LocalJob job = LocalJob.start(directory, 2, context -> { }))
        {
            final Communicator sender = job.rank(0);
            final Communicator receiver = job.rank(1);
            final ByteBuffer in = ByteBuffer.allocateDirect(8).order(ByteOrder.nativeOrder());
            final int messages = 20_000;
            for (int i = 0; i < messages; i++)
            {
                sender.send(longs(i), 1, Datatype.LONG, 1, 1);
                receiver.recv(in, 1, Datatype.LONG, 0, 1);
                assertEquals(i, in.getLong(0), "message " + i);
            }
            assertEquals(messages, sender.engine().counters(1)[EAGER_SENDS]);
            assertEquals(0, sender.engine().counters(1)[RENDEZVOUS_SENDS]);

            sender.send(longs(77), 1, Datatype.LONG, 1, 2);
            sender.send(ByteBuffer.allocateDirect(0), 0, Datatype.BYTE, 1, 3);
            assertEquals(0, receiver.recv(ByteBuffer.allocateDirect(8), 2, Datatype.BYTE, 0, 3).count());
            assertEquals(1, receiver.recv(in, 1, Datatype.LONG, 0, 2).count());
            assertEquals(77, in.getLong(0));
        }
    }

    @Test
    void shouldCatchTruncationAndSignatureMismatchOfShortMessages()
    {
        try (LocalJob job = LocalJob.start(directory, 2, context -> context.asyncErrorHandler(error -> { })))
        {
            final Request small = job.rank(1).irecv(ByteBuffer.allocateDirect(8), 1, Datatype.INT, 0, 1);
            job.rank(0).send(longs(1), 1, Datatype.LONG, 1, 1);
            final TruncationException truncated = assertThrows(TruncationException.class, () -> small.await(TIMEOUT));
            assertEquals(true, truncated.getMessage().contains("8"), truncated.getMessage());

            final Request mismatched = job.rank(1).irecv(ByteBuffer.allocateDirect(8), 2, Datatype.INT, 0, 2);
            job.rank(0).send(longs(2), 1, Datatype.LONG, 1, 2);
            assertThrows(SignatureMismatchException.class, () -> mismatched.await(TIMEOUT));

            final ByteBuffer in = ByteBuffer.allocateDirect(8).order(ByteOrder.nativeOrder());
            final Request fine = job.rank(1).irecv(in, 1, Datatype.LONG, 0, 3);
            job.rank(0).send(longs(3), 1, Datatype.LONG, 1, 3);
            fine.await(TIMEOUT);
            assertEquals(3, in.getLong(0));
        }
    }
}
