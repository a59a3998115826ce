package io.stagecoach.pipeline.trace;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Timeout(30)
class StageTracingTest
{
    @TempDir
    Path folder;

    @Test
    void shouldWriteEveryRecordIntoTheRanksFileWithMode0600() throws IOException
    {
        final StageTracing tracing = StageTracing.start(context(2));
        for (int chunk = 0; chunk < 5000; chunk++)
        {
            tracing.tracer().record(9, chunk, Stage.of(chunk % Stage.COUNT), chunk * 10L, chunk * 10L + 7, 4096, 1);
        }
        tracing.close();

        final Path file = folder.resolve("rank-2.stagetrace");
        assertEquals(file, tracing.file());
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
        try (StageTraceFileReader reader = StageTraceFileReader.open(file))
        {
            assertEquals(2, reader.rank());
            assertEquals(5000, reader.recordCount());
            assertEquals(0, reader.droppedRecords());
            assertEquals(0, reader.partialBytes());
            assertEquals(ProcessHandle.current().pid(), reader.pid());
            final long wallNs = System.currentTimeMillis() * 1_000_000L;
            assertTrue(Math.abs(reader.epochOffsetNs() + System.nanoTime() - wallNs) < TimeUnit.SECONDS.toNanos(5),
                "epoch offset " + reader.epochOffsetNs());
            final int[] next = { 0 };
            reader.read(record -> assertRecord(record, next[0]++));
        }
    }

    @Test
    void shouldDrainWhileRunningWithinTheDrainPeriod() throws IOException
    {
        try (StageTracing tracing = StageTracing.start(context(0).drainPeriodNs(TimeUnit.MILLISECONDS.toNanos(1))))
        {
            tracing.tracer().record(1, 0, Stage.PACK, 1, 2, 3, 0);
            final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (Files.size(tracing.file()) < StageTraceFile.HEADER_LENGTH + StageRecord.LENGTH &&
                System.nanoTime() - deadlineNs < 0)
            {
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
            }
            assertEquals(StageTraceFile.HEADER_LENGTH + StageRecord.LENGTH, Files.size(tracing.file()),
                "the record reached the file within 10 s, before close");
        }
    }

    @Test
    void shouldKeepTheFilesCountOfDroppedRecords() throws IOException
    {
        final StageTracing tracing = StageTracing.start(context(1).ringCapacityBytes(StageRing.MIN_CAPACITY_BYTES)
            .drainPeriodNs(StageTraceContext.MAX_DRAIN_PERIOD_NS));
        int recorded = 0;
        while (tracing.droppedRecords() < 10 && recorded < 10_000_000)
        {
            tracing.tracer().record(1, recorded, Stage.WIRE, recorded, recorded, 1, 0);
            recorded++;
        }
        final long dropped = tracing.droppedRecords();
        tracing.close();

        assertTrue(dropped >= 10, "dropped " + dropped + " of " + recorded);
        try (StageTraceFileReader reader = StageTraceFileReader.open(tracing.file()))
        {
            assertEquals(dropped, reader.droppedRecords());
            assertEquals(recorded, reader.recordCount() + dropped);
        }
    }

    @Test
    void shouldHandDrainedRecordsToALiveHandlerWithoutAFile() throws IOException
    {
        final List<String> seen = new CopyOnWriteArrayList<>();
        final StageTracing tracing = StageTracing.start(new StageTraceContext().rank(4)
            .recordHandler(record -> seen.add(record.stage() + " " + record.chunk())));
        tracing.tracer().record(1, 3, Stage.UNPACK, 1, 2, 3, 0);
        tracing.close();

        assertEquals(List.of("UNPACK 3"), seen);
        assertEquals(null, tracing.file());
        try (Stream<Path> entries = Files.list(folder))
        {
            assertEquals(List.of(), entries.toList());
        }
    }

    @Test
    void shouldBeOffWithNowhereForRecordsToGo()
    {
        final StageTracing tracing = StageTracing.start(new StageTraceContext().rank(0));
        assertSame(StageTracer.OFF, tracing.tracer());
        assertEquals(null, tracing.file());
        tracing.close();
    }

    @Test
    void shouldRefuseAFolderThatIsNotPrivate() throws IOException
    {
        Files.setPosixFilePermissions(folder, PosixFilePermissions.fromString("rwxr-xr-x"));

        final String message = assertThrows(IllegalStateException.class,
            () -> StageTracing.start(context(0))).getMessage();

        assertTrue(message.contains(folder + " is not a private folder") &&
            message.contains("its mode is rwxr-xr-x, not rwx------"), message);
    }

    @Test
    void shouldNeitherFollowNorReplaceWhatIsAtTheFilesName() throws IOException
    {
        final Path target = Files.writeString(folder.resolve("target"), "keep me");
        Files.createSymbolicLink(folder.resolve("rank-0.stagetrace"), target);

        final String message = assertThrows(UncheckedIOException.class,
            () -> StageTracing.start(context(0))).getMessage();

        assertTrue(message.contains("cannot create the stage trace file " + folder.resolve("rank-0.stagetrace")),
            message);
        assertEquals("keep me", Files.readString(target));
        assertTrue(Files.isSymbolicLink(folder.resolve("rank-0.stagetrace")));
        assertFalse(Files.exists(folder.resolve("rank-1.stagetrace"), LinkOption.NOFOLLOW_LINKS));
    }

    @Test
    void shouldRefuseSettingsOutsideTheirLimits()
    {
        assertEquals("stage trace rank -1 is negative", assertThrows(IllegalArgumentException.class,
            () -> new StageTraceContext().conclude()).getMessage());
        assertEquals("stage trace drain period 0 ns is outside (0, 1000000000]",
            assertThrows(IllegalArgumentException.class,
            () -> new StageTraceContext().rank(0).drainPeriodNs(0).conclude()).getMessage());
        assertThrows(IllegalArgumentException.class,
            () -> new StageTraceContext().rank(0).drainPeriodNs(StageTraceContext.MAX_DRAIN_PERIOD_NS + 1).conclude());
        assertThrows(IllegalArgumentException.class,
            () -> new StageTraceContext().rank(0).ringCapacityBytes(3 << 20).conclude());
    }

    private StageTraceContext context(final int rank)
    {
        return new StageTraceContext().rank(rank).directory(folder);
    }

    private static void assertRecord(final StageRecord record, final int chunk)
    {
        assertEquals(2, record.rank());
        assertEquals(9, record.transferId());
        assertEquals(chunk, record.chunk());
        assertEquals(Stage.of(chunk % Stage.COUNT), record.stage());
        assertEquals(chunk * 10L, record.startNs());
        assertEquals(chunk * 10L + 7, record.endNs());
        assertEquals(4096, record.bytes());
        assertEquals(1, record.device());
    }
}
