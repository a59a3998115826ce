package io.stagecoach.rank;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;

import io.stagecoach.protocol.datatype.Datatype;
import io.stagecoach.protocol.host.CrossMemory;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Large messages between ranks of one node read straight out of the sender's memory: contiguous on both sides,
 * matched at once or from the unexpected queue, synchronous, scattered on either side (packed whole into pooled
 * buffers, or into the sender's shared arena, which the receiver maps); the fallback through CTS and DATA where reads
 * are turned off. The counters of reads and arena copies tell which path a message took.
 */
class SameNodeReadTest
{
    private static final Duration TIMEOUT = Duration.ofSeconds(20);
    private static final int THRESHOLD = 4096;
    private static final int READS = 6;
    private static final int ARENA_COPIES = 7;

    @TempDir
    Path directory;

    @BeforeEach
    void needsCrossMemoryReads()
    {
        assumeTrue(CrossMemory.unavailableReason() == null, CrossMemory.unavailableReason());
    }

    private static ByteBuffer pattern(final int lengthBytes, final int seed)
    {
        final ByteBuffer buffer = ByteBuffer.allocateDirect(lengthBytes);
        for (int i = 0; i < lengthBytes; i++)
        {
            buffer.put(i, (byte)(i * 37 + seed));
        }
        return buffer;
    }

    private static long reads(final LocalJob job, final int receiver, final int sender)
    {
        return job.rank(receiver).engine().counters(sender)[READS];
    }

    @Test
    void shouldReadAContiguousMessageWhetherTheReceiveWasPostedBeforeOrAfterIt() throws Exception
    {
        try (LocalJob job = LocalJob.start(directory, 2, context -> context.eagerThresholdBytes(THRESHOLD)))
        {
            final int lengthBytes = 3 * 1024 * 1024 + 5;
            final ByteBuffer out = pattern(lengthBytes, 1);
            final ByteBuffer in = ByteBuffer.allocateDirect(lengthBytes);
            final Request posted = job.rank(1).irecv(in, lengthBytes, Datatype.BYTE, 0, 1);
            job.rank(0).isend(out, lengthBytes, Datatype.BYTE, 1, 1).await(TIMEOUT);
            assertEquals(lengthBytes, posted.await(TIMEOUT).count());
            assertEquals(out, in);
            assertEquals(1, reads(job, 1, 0));

            final ByteBuffer later = pattern(lengthBytes, 2);
            final Request send = job.rank(0).isend(later, lengthBytes, Datatype.BYTE, 1, 2);
            while (job.rank(1).engine().counters(0)[2] < 1)
            {
                Thread.onSpinWait();
                job.rank(1).engine().progress();
            }
            assertFalse(send.isDone(), "a rendezvous send completes only once its data is read");
            in.clear();
            assertEquals(lengthBytes, job.rank(1).recv(in, lengthBytes, Datatype.BYTE, 0, 2).count());
            send.await(TIMEOUT);
            assertEquals(later, in);
            assertEquals(2, reads(job, 1, 0));
        }
    }

    @Test
    void shouldCompleteASynchronousSendOnceItsDataIsRead()
    {
        try (LocalJob job = LocalJob.start(directory, 2, context -> context.eagerThresholdBytes(THRESHOLD)))
        {
            final int ints = 100_000;
            final ByteBuffer out = pattern(ints * 4, 3);
            final ByteBuffer in = ByteBuffer.allocateDirect(ints * 4);
            final Request send = job.rank(1).issend(out, ints, Datatype.INT, 0, 9);
            assertEquals(ints, job.rank(0).recv(in, ints, Datatype.INT, 1, 9).count());
            send.await(TIMEOUT);
            assertEquals(out, in);
            assertEquals(1, reads(job, 0, 1));
        }
    }

    private static long arenaCopies(final LocalJob job, final int receiver, final int sender)
    {
        return job.rank(receiver).engine().counters(sender)[ARENA_COPIES];
    }

    @ParameterizedTest(name = "shared arena of {0} bytes")
    @ValueSource(longs = { StagecoachContext.DEFAULT_SHARED_ARENA_BYTES, 0 })
    void shouldMoveScatteredSendsAndReceivesThroughTheArenaOrPooledPackingBuffers(final long arenaBytes)
    {
        try (LocalJob job = LocalJob.start(directory, 2,
            context -> context.eagerThresholdBytes(THRESHOLD).sharedArenaBytes(arenaBytes)))
        {
            final int doubles = 50_000;
            final Datatype everyOther = Datatype.vector(doubles, 1, 2, Datatype.DOUBLE).commit();
            final ByteBuffer out = pattern(doubles * 8, 4);
            final ByteBuffer in = ByteBuffer.allocateDirect(doubles * 16);
            final Request receive = job.rank(1).irecv(in, 1, everyOther, 0, 5);
            job.rank(0).send(out, doubles, Datatype.DOUBLE, 1, 5);
            receive.await(TIMEOUT);
            for (int i = 0; i < doubles; i++)
            {
                assertEquals(out.getLong(i * 8), in.getLong(i * 16), "double " + i);
            }
            assertEquals(1, reads(job, 1, 0));

            final ByteBuffer back = ByteBuffer.allocateDirect(doubles * 8);
            final Request returned = job.rank(0).irecv(back, doubles, Datatype.DOUBLE, 1, 6);
            job.rank(1).send(in, 1, everyOther, 0, 6);
            returned.await(TIMEOUT);
            assertEquals(out, back);
            assertEquals(1, reads(job, 0, 1));
            assertEquals(arenaBytes > 0 ? 1 : 0, arenaCopies(job, 0, 1), "a scattered send packed into the arena");
            assertEquals(0, arenaCopies(job, 1, 0), "a contiguous send is read where it lies");

            for (int round = 0; round < 3; round++)
            {
                final Request again = job.rank(1).irecv(in, 1, everyOther, 0, 7);
                job.rank(0).send(out, doubles, Datatype.DOUBLE, 1, 7);
                again.await(TIMEOUT);
                final Request scatteredBack = job.rank(0).irecv(back, doubles, Datatype.DOUBLE, 1, 8);
                job.rank(1).send(in, 1, everyOther, 0, 8);
                scatteredBack.await(TIMEOUT);
                assertEquals(out, back);
            }
            assertEquals(4, reads(job, 1, 0));
            assertEquals(arenaBytes > 0 ? 4 : 0, arenaCopies(job, 0, 1), "arena buffers reused, round after round");
        }
    }

    @Test
    void shouldStreamThroughTheLogBufferWhenReadsAreOff()
    {
        try (LocalJob job = LocalJob.start(directory, 2,
            context -> context.eagerThresholdBytes(THRESHOLD).sameNodeReads(false)))
        {
            final int lengthBytes = 1024 * 1024;
            final ByteBuffer out = pattern(lengthBytes, 6);
            final ByteBuffer in = ByteBuffer.allocateDirect(lengthBytes);
            final Request receive = job.rank(1).irecv(in, lengthBytes, Datatype.BYTE, 0, 6);
            job.rank(0).send(out, lengthBytes, Datatype.BYTE, 1, 6);
            receive.await(TIMEOUT);
            assertEquals(out, in);
            assertEquals(0, reads(job, 1, 0));
        }
    }
}
