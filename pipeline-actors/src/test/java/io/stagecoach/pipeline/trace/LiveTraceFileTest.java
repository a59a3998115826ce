package io.stagecoach.pipeline.trace;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Timeout(30)
class LiveTraceFileTest
{
    @TempDir
    Path folder;

    @Test
    void shouldCarryStageAndTransferRecordsToAReaderWhileTheRankRuns() throws IOException
    {
        final List<String> seen = new ArrayList<>();
        final StageRecordHandler handler = new StageRecordHandler()
        {
            public void onRecord(final StageRecord record)
            {
                seen.add(record.stage() + " " + record.transferId() + "/" + record.chunk() + " " + record.bytes());
            }

            public void onTransfer(final TransferRecord record)
            {
                seen.add(TracedPath.of(record.pathOrdinal()) + " " + record.transferId() + " peer " +
                    record.peer() + (record.isReceiving() ? " in " : " out ") + record.bytes() +
                    (record.hasEnded() ? " ended" : " begun") + (record.hasFailed() ? " failed" : ""));
            }
        };
        try (StageTracing tracing = StageTracing.start(context(3)))
        {
            final Path file = folder.resolve("rank-3.stagelive");
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
            try (LiveTraceReader reader = LiveTraceReader.open(file))
            {
                assertEquals(3, reader.rank());
                tracing.tracer().transferBegun(7, 1, TracedPath.STAGED, true, 8192, 2, 100);
                tracing.tracer().record(7, 0, Stage.WIRE, 100, 150, 4096, 0);
                tracing.tracer().record(7, 1, Stage.UNPACK, 150, 190, 4096, 0);
                tracing.tracer().transferEnded(7, 1, TracedPath.STAGED, true, 8192, 100, 200, false);
                tracing.tracer().transferEnded(8, 2, TracedPath.EAGER, false, 16, 300, 300, true);
                final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (seen.size() < 5 && System.nanoTime() - deadlineNs < 0)
                {
                    reader.read(handler, 100);
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
                }
                assertEquals(List.of("STAGED 7 peer 1 in 8192 begun", "WIRE 7/0 4096", "UNPACK 7/1 4096",
                    "STAGED 7 peer 1 in 8192 ended", "EAGER 8 peer 2 out 16 ended failed"), seen,
                    "records read from shared memory within 10 s, before the rank closed");
                assertEquals(0, reader.droppedRecords());
            }
        }
    }

    @Test
    void shouldRecordCopyToTheLiveFileAndReadWithoutAllocating() throws IOException
    {
        final StageRing ring = new StageRing(4, 1 << 20);
        final long[] sum = { 0 };
        final StageRecordHandler reading = new StageRecordHandler()
        {
            public void onRecord(final StageRecord record)
            {
                sum[0] += record.bytes();
            }

            public void onTransfer(final TransferRecord record)
            {
                sum[0] += record.bytes();
            }
        };
        try (LiveTraceWriter writer = LiveTraceWriter.create(folder, 4, 1 << 20);
            LiveTraceReader reader = LiveTraceReader.open(folder.resolve("rank-4.stagelive")))
        {
            recordCopyAndRead(ring, writer, reader, reading, 100_000);
            final com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
            final long thread = Thread.currentThread().getId();
            long allocated = Long.MAX_VALUE;
            int rounds = 0;
            while (allocated != 0 && rounds < 3)
            {
                rounds++;
                final long before = threads.getThreadAllocatedBytes(thread);
                recordCopyAndRead(ring, writer, reader, reading, 500_000);
                allocated = Math.min(allocated, threads.getThreadAllocatedBytes(thread) - before);
            }

            assertEquals(0, allocated, "bytes allocated recording, copying and reading 500,000 stage and transfer " +
                "record pairs, the least of " + rounds + " rounds (a deoptimisation can allocate a few hundred bytes " +
                "once; a record that allocated would show millions every round)");
            assertEquals((100_000L + rounds * 500_000L) * (64 + 4096), sum[0]);
            assertEquals(0, reader.droppedRecords());
        }
    }

    private static void recordCopyAndRead(
        final StageRing ring, final LiveTraceWriter writer, final LiveTraceReader reader,
        final StageRecordHandler reading, final int pairs)
    {
        for (int i = 0; i < pairs; i++)
        {
            ring.record(1, i, Stage.WIRE, i, i + 1, 64, 0);
            ring.transferEnded(i, 1, TracedPath.STAGED, true, 4096, i, i + 1, false);
            if (i % 1000 == 999)
            {
                ring.drain(writer, 4096);
                reader.read(reading, 4096);
            }
        }
        ring.drain(writer, 4096);
        reader.read(reading, 4096);
    }

    @Test
    void shouldDropAndCountWhatTheReaderLeavesNoRoomFor() throws IOException
    {
        final int capacity = StageRing.MIN_CAPACITY_BYTES;
        final StageTracing tracing = StageTracing.start(context(0).liveRingCapacityBytes(capacity));
        final int records = 3 * capacity / StageRing.RECORD_SLOT_BYTES;
        for (int i = 0; i < records; i++)
        {
            tracing.tracer().record(1, i, Stage.PACK, i, i + 1, 1, 0);
            if (i % 100 == 0)
            {
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2));
            }
        }
        tracing.close();
        try (LiveTraceReader reader = LiveTraceReader.open(folder.resolve("rank-0.stagelive")))
        {
            final int[] read = { 0 };
            int taken;
            while ((taken = reader.read(record -> read[0]++, 1000)) > 0)
            {
                assertTrue(taken <= 1000);
            }
            assertTrue(read[0] > 0 && read[0] < records, read[0] + " of " + records + " records kept");
            assertEquals(records, read[0] + reader.droppedRecords() + tracing.droppedRecords(),
                "every record read or counted as dropped");
        }
    }

    @Test
    void shouldSkipAFileWhoseHeaderIsNotWrittenYetAndRefuseAnotherFormat() throws IOException
    {
        final Path empty = folder.resolve("rank-5.stagelive");
        Files.write(empty, new byte[LiveTraceFile.HEADER_LENGTH]);
        assertNull(LiveTraceReader.open(empty));
        final Path other = folder.resolve("rank-6.stagelive");
        final byte[] bytes = new byte[LiveTraceFile.HEADER_LENGTH + 16];
        new org.agrona.concurrent.UnsafeBuffer(bytes).putLong(0, LiveTraceFile.MAGIC);
        Files.write(other, bytes);
        final IOException refused = assertThrows(IOException.class, () -> LiveTraceReader.open(other));
        assertTrue(refused.getMessage().contains("rank-6.stagelive"), refused.getMessage());
        assertTrue(LiveTraceFile.isLiveFileName(other));
        assertFalse(LiveTraceFile.isLiveFileName(folder.resolve("rank-.stagelive")));
    }

    private StageTraceContext context(final int rank)
    {
        return new StageTraceContext().rank(rank).liveDirectory(folder)
            .drainPeriodNs(TimeUnit.MILLISECONDS.toNanos(1));
    }
}
