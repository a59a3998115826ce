package io.stagecoach.pipeline.trace;

import java.io.IOException;
import java.io.Writer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.agrona.CloseHelper;

/**
 * Merges the trace files of a job's ranks into one Chrome trace ({@link ChromeTraceWriter}) that ui.perfetto.dev and
 * chrome://tracing open: a process per rank ({@code "rank N"}, pid N + 1), a track per stage in stage order (more
 * where chunks of a stage overlap: {@code "WIRE 2"}, ...), a complete event per record with its transfer, chunk,
 * bytes and device as arguments. Times are microseconds since the earliest start of any record; the monotonic
 * clock's value of that origin, and what was dropped or invalid, are under {@code "otherData"}. Records that name no
 * stage or end before they start are left out and counted.
 */
public final class ChromeTraceExport
{
    private ChromeTraceExport()
    {
    }

    /**
     * What an export wrote.
     *
     * @param ranks          files merged.
     * @param events         complete events written.
     * @param droppedRecords records the ranks' rings had no room for.
     * @param invalidRecords records left out: no stage, or ending before they start.
     * @param partialRecords files that end in part of a record (a rank killed while writing).
     * @param unreadable     why each file that could not be read, or is no trace file, was left out.
     */
    public record Summary(
        int ranks, long events, long droppedRecords, long invalidRecords, int partialRecords, List<String> unreadable)
    {
    }

    /**
     * Writes the merged trace. A file that cannot be read or is no trace file (a rank killed before it wrote its
     * header) is left out and named in the summary.
     *
     * @param files     the ranks' trace files, one per rank.
     * @param out       where the JSON goes; flushed, not closed.
     * @param otherData written first under {@code "otherData"} (e.g. the job and the program).
     * @return what was written.
     * @throws IOException when the output fails, or naming both files when two hold the same rank.
     */
    public static Summary write(final List<Path> files, final Writer out, final Map<String, String> otherData)
        throws IOException
    {
        final List<StageTraceFileReader> readers = new ArrayList<>(files.size());
        final List<String> unreadable = new ArrayList<>();
        try
        {
            for (final Path file : files)
            {
                open(file, readers, unreadable);
            }
            readers.sort(Comparator.comparingInt(StageTraceFileReader::rank));
            checkRanks(readers);
            return write(readers, new ChromeTraceWriter(out), new LinkedHashMap<>(otherData), unreadable);
        }
        finally
        {
            readers.forEach(CloseHelper::quietClose);
        }
    }

    /**
     * Writes the records of ranks held elsewhere than in files (a live view's memory) as the same trace.
     *
     * @param sources   one per rank, in any order.
     * @param out       where the JSON goes; flushed, not closed.
     * @param otherData written first under {@code "otherData"}.
     * @return what was written.
     * @throws IOException when the output fails, or naming the rank when two sources hold it.
     */
    public static Summary writeSources(
        final List<? extends StageRecordSource> sources, final Writer out, final Map<String, String> otherData)
        throws IOException
    {
        final List<StageRecordSource> sorted = new ArrayList<>(sources);
        sorted.sort(Comparator.comparingInt(StageRecordSource::rank));
        for (int i = 1; i < sorted.size(); i++)
        {
            if (sorted.get(i).rank() == sorted.get(i - 1).rank())
            {
                throw new IOException("two sources hold rank " + sorted.get(i).rank());
            }
        }
        return write(sorted, new ChromeTraceWriter(out), new LinkedHashMap<>(otherData), List.of());
    }

    private static void open(final Path file, final List<StageTraceFileReader> readers, final List<String> unreadable)
    {
        try
        {
            readers.add(StageTraceFileReader.open(file));
        }
        catch (final IOException ex)
        {
            unreadable.add(ex.getMessage());
        }
    }

    private static Summary write(
        final List<? extends StageRecordSource> readers,
        final ChromeTraceWriter writer,
        final Map<String, String> data,
        final List<String> unreadable) throws IOException
    {
        final long originNs = originNs(readers);
        long events = 0;
        long dropped = 0;
        long invalid = 0;
        int partial = 0;
        writer.begin();
        for (final StageRecordSource reader : readers)
        {
            final StageLanes lanes = StageLanes.assign(reader);
            writeRank(writer, reader, lanes, originNs);
            events += lanes.validCount();
            invalid += lanes.invalidCount();
            dropped += reader.droppedRecords();
            partial += reader.partialBytes() > 0 ? 1 : 0;
        }
        data.put("clock", "CLOCK_MONOTONIC");
        data.put("originNs", Long.toString(originNs));
        data.put("originEpochNs", readers.isEmpty() ? "" : Long.toString(originNs + readers.get(0).epochOffsetNs()));
        data.put("droppedRecords", Long.toString(dropped));
        data.put("invalidRecords", Long.toString(invalid));
        writer.end(data);
        return new Summary(readers.size(), events, dropped, invalid, partial, List.copyOf(unreadable));
    }

    private static void writeRank(
        final ChromeTraceWriter writer,
        final StageRecordSource reader,
        final StageLanes lanes,
        final long originNs) throws IOException
    {
        final int rank = reader.rank();
        final long dropped = reader.droppedRecords();
        writer.rank(rank, dropped > 0 ? "dropped " + dropped + " records" : null);
        for (final Stage stage : Stage.values())
        {
            for (int lane = 0; lane < lanes.lanes(stage); lane++)
            {
                writer.track(rank, StageLanes.tid(stage, lane), StageLanes.name(stage, lane),
                    StageLanes.sortIndex(stage, lane));
            }
        }
        for (int i = 0; i < lanes.validCount(); i++)
        {
            final int index = lanes.recordAt(i);
            final StageRecord record = reader.record(index);
            writer.stage(record, StageLanes.tid(record.stage(), lanes.laneOf(index)), originNs);
        }
    }

    private static long originNs(final List<? extends StageRecordSource> readers)
    {
        long originNs = Long.MAX_VALUE;
        for (final StageRecordSource reader : readers)
        {
            for (int i = 0; i < reader.recordCount(); i++)
            {
                final StageRecord record = reader.record(i);
                originNs = StageLanes.isValid(record) ? Math.min(originNs, record.startNs()) : originNs;
            }
        }
        return Long.MAX_VALUE == originNs ? 0 : originNs;
    }

    private static void checkRanks(final List<StageTraceFileReader> readers) throws IOException
    {
        for (int i = 1; i < readers.size(); i++)
        {
            if (readers.get(i).rank() == readers.get(i - 1).rank())
            {
                throw new IOException("both " + readers.get(i - 1).file() + " and " + readers.get(i).file() +
                    " hold rank " + readers.get(i).rank());
            }
        }
    }
}
