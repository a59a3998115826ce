package io.stagecoach.rank;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.time.Duration;

import io.stagecoach.protocol.datatype.Datatype;
import io.stagecoach.protocol.host.CrossMemory;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Messages sent from memory of {@link Communicator#allocate(long)} to a rank of the same node: a scattered one
 * whose blocks are long enough is copied by the receiver straight out of the send buffer (into a contiguous receive
 * buffer, row to row into rows alike, or unpacked into other scattered ones, posted before or after the message
 * came); a column of floats is still
 * packed; with reads off the message goes through CTS and DATA. The counters tell which path a message took. Then
 * allocate and free themselves: errors, and memory outside the arena where it has no room.
 */
class DirectCopyTest
{
    private static final Duration TIMEOUT = Duration.ofSeconds(20);
    private static final int THRESHOLD = 4096;
    private static final int READS = 6;
    private static final int ARENA_COPIES = 7;
    private static final int DIRECT_COPIES = 8;
    private static final int N = 64;
    private static final int GRID_BYTES = N * N * N * Float.BYTES;

    @TempDir
    Path directory;

    @BeforeEach
    void needsCrossMemoryReads()
    {
        assumeTrue(CrossMemory.unavailableReason() == null, CrossMemory.unavailableReason());
    }

    private static Datatype yFace()
    {
        return Datatype.vector(N, N, N * N, Datatype.FLOAT).commit();
    }

    private static ByteBuffer filledGrid(final Communicator comm, final int seed)
    {
        final ByteBuffer grid = comm.allocate(GRID_BYTES);
        for (int i = 0; i < GRID_BYTES / Float.BYTES; i++)
        {
            grid.putFloat(i * Float.BYTES, i * 3 + seed);
        }
        return grid;
    }

    private static long counter(final LocalJob job, final int receiver, final int sender, final int index)
    {
        return job.rank(receiver).engine().counters(sender)[index];
    }

    private static void assertRowsArrived(final ByteBuffer sent, final int plane, final ByteBuffer received,
        final int receivedPlane, final boolean contiguous)
    {
        for (int z = 0; z < N; z++)
        {
            for (int x = 0; x < N; x++)
            {
                final float expected = sent.getFloat(((z * N + plane) * N + x) * Float.BYTES);
                final int at = contiguous ? (z * N + x) : ((z * N + receivedPlane) * N + x);
                assertEquals(expected, received.getFloat(at * Float.BYTES), "z " + z + " x " + x);
            }
        }
    }

    @Test
    void shouldCopyAScatteredMessageStraightOutOfAnAllocatedSendBuffer()
    {
        try (LocalJob job = LocalJob.start(directory, 2, context -> context.eagerThresholdBytes(THRESHOLD)))
        {
            final Communicator sender = job.rank(0);
            final ByteBuffer grid = filledGrid(sender, 1);
            final Datatype face = yFace();
            final ByteBuffer out = grid.duplicate().order(ByteOrder.nativeOrder()).position(5 * N * Float.BYTES);

            final ByteBuffer rows = ByteBuffer.allocateDirect(N * N * Float.BYTES).order(ByteOrder.nativeOrder());
            final Request contiguous = job.rank(1).irecv(rows, N * N, Datatype.FLOAT, 0, 1);
            sender.send(out, 1, face, 1, 1);
            assertEquals(N * N, contiguous.await(TIMEOUT).count());
            assertRowsArrived(grid, 5, rows, 0, true);

            final ByteBuffer ghost = ByteBuffer.allocateDirect(GRID_BYTES).order(ByteOrder.nativeOrder());
            final Request scattered = job.rank(1).irecv(ghost, 1, face, 0, 2);
            sender.send(out, 1, face, 1, 2);
            assertEquals(1, scattered.await(TIMEOUT).count());
            assertRowsArrived(grid, 5, ghost, 0, false);

            final Request late = sender.isend(grid.duplicate().position(7 * N * Float.BYTES), 1, face, 1, 3);
            while (counter(job, 1, 0, 2) < 1)
            {
                job.rank(1).engine().progress();
                Thread.onSpinWait();
            }
            assertFalse(late.isDone(), "the send completes once the receiver copied the data");
            final ByteBuffer ghost2 = ByteBuffer.allocateDirect(GRID_BYTES).order(ByteOrder.nativeOrder());
            job.rank(1).recv(ghost2.position(N * Float.BYTES), 1, face, 0, 3);
            late.await(TIMEOUT);
            assertRowsArrived(grid, 7, ghost2.position(0), 1, false);

            final Datatype halfRows = Datatype.vector(2 * N, N / 2, N, Datatype.FLOAT).commit();
            final ByteBuffer halves = ByteBuffer.allocateDirect(2 * N * N * Float.BYTES).order(ByteOrder.nativeOrder());
            final Request unalike = job.rank(1).irecv(halves, 1, halfRows, 0, 4);
            sender.send(out, 1, face, 1, 4);
            unalike.await(TIMEOUT);
            for (int z = 0; z < N; z++)
            {
                for (int x = 0; x < N; x++)
                {
                    final int half = (z * N + x) / (N / 2);
                    final int at = half * N + (z * N + x) % (N / 2);
                    assertEquals(grid.getFloat(((z * N + 5) * N + x) * Float.BYTES), halves.getFloat(at * Float.BYTES),
                        "z " + z + " x " + x);
                }
            }

            assertEquals(4, counter(job, 1, 0, DIRECT_COPIES));
            assertEquals(0, counter(job, 1, 0, ARENA_COPIES));
            sender.free(grid);
        }
    }

    @Test
    void shouldStillPackAColumnOfFloatsFromAllocatedMemory()
    {
        try (LocalJob job = LocalJob.start(directory, 2, context -> context.eagerThresholdBytes(THRESHOLD)))
        {
            final ByteBuffer grid = filledGrid(job.rank(0), 2);
            final Datatype column = Datatype.vector(N * N, 1, N, Datatype.FLOAT).commit();
            final ByteBuffer in = ByteBuffer.allocateDirect(N * N * Float.BYTES).order(ByteOrder.nativeOrder());
            final Request receive = job.rank(1).irecv(in, N * N, Datatype.FLOAT, 0, 1);
            job.rank(0).send(grid, 1, column, 1, 1);
            receive.await(TIMEOUT);
            for (int i = 0; i < N * N; i++)
            {
                assertEquals(grid.getFloat(i * N * Float.BYTES), in.getFloat(i * Float.BYTES), "element " + i);
            }
            assertEquals(0, counter(job, 1, 0, DIRECT_COPIES));
            assertEquals(1, counter(job, 1, 0, ARENA_COPIES));
        }
    }

    @Test
    void shouldSendFromAllocatedMemoryThroughTheLogBufferWhereReadsAreOff()
    {
        try (LocalJob job = LocalJob.start(directory, 2,
            context -> context.eagerThresholdBytes(THRESHOLD).sameNodeReads(false)))
        {
            final ByteBuffer grid = filledGrid(job.rank(0), 3);
            final ByteBuffer ghost = ByteBuffer.allocateDirect(GRID_BYTES).order(ByteOrder.nativeOrder());
            final Request receive = job.rank(1).irecv(ghost, 1, yFace(), 0, 1);
            job.rank(0).send(grid.duplicate().position(2 * N * Float.BYTES), 1, yFace(), 1, 1);
            receive.await(TIMEOUT);
            assertRowsArrived(grid, 2, ghost, 0, false);
            assertEquals(0, counter(job, 1, 0, READS));
        }
    }

    @Test
    void shouldRefuseToFreeWhatItDidNotAllocateAndFallBackOutsideAFullArena()
    {
        try (LocalJob job = LocalJob.start(directory, 1, context -> context.sharedArenaBytes(1 << 20)))
        {
            final Communicator comm = job.rank(0);
            assertTrue(assertThrows(IllegalArgumentException.class, () -> comm.allocate(0)).getMessage()
                .contains("0 bytes is outside [1, " + Integer.MAX_VALUE + "]"));
            final ByteBuffer inArena = comm.allocate(4096);
            final ByteBuffer outside = comm.allocate(4 << 20);
            assertTrue(inArena.isDirect() && outside.isDirect());
            assertEquals(ByteOrder.nativeOrder(), outside.order());
            assertTrue(job.rank(0).engine().sharedArena().offsetOf(org.agrona.BufferUtil.address(inArena)) > 0);
            assertEquals(-1, job.rank(0).engine().sharedArena().offsetOf(org.agrona.BufferUtil.address(outside)));
            comm.free(inArena);
            comm.free(outside);
            final String twice = assertThrows(IllegalArgumentException.class, () -> comm.free(inArena)).getMessage();
            assertTrue(twice.contains("was not allocated by this communicator, or was freed already"), twice);
            assertThrows(IllegalArgumentException.class, () -> comm.free(ByteBuffer.allocateDirect(64)));
        }
    }
}
