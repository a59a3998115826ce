package io.stagecoach.node.dashboard;

import java.io.IOException;
import java.io.Writer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import io.stagecoach.pipeline.trace.ChromeTraceExport;
import io.stagecoach.pipeline.trace.Stage;
import io.stagecoach.pipeline.trace.StageRecord;
import io.stagecoach.pipeline.trace.StageRecordArray;
import io.stagecoach.pipeline.trace.TracedPath;
import io.stagecoach.pipeline.trace.TransferRecord;
import org.agrona.collections.Int2ObjectHashMap;
import org.agrona.collections.Long2ObjectHashMap;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * What a dashboard knows of one job's stage trace, in bounded memory however fast records come: the bars of the
 * timeline (sampled when more arrive than a browser can draw, {@link DashboardContext#maxBarsPerSecond()}, and
 * counted), the lanes seen (rank and stage), per stage its count, its share of the stage time and a histogram for its
 * 99th percentile, per peer link the bytes delivered over the last seconds, the transfers in flight with their path
 * and progress, and the last {@link DashboardContext#exportRecords()} stage records for a Chrome trace download.
 * Told of records by one thread (a {@link LiveTraceCollector}); read by the server's threads. Every method holds the
 * trace's lock briefly.
 */
public final class JobTrace implements LiveTraceSink
{
    private static final long SAMPLE_PERIOD_NS = 200_000_000L;
    private static final int MAX_FLIGHT_ROWS = 12;
    private static final long STALE_FLIGHT_NS = 60_000_000_000L;

    /** The records the download's buffer holds at first; it doubles as they come, up to the capacity. */
    static final int FIRST_EXPORT_RECORDS = 4_096;

    private final String jobId;
    private final String program;
    private final int size;
    private final DashboardContext context;

    private final int barCapacity;
    private final int[] barRank;
    private final byte[] barStage;
    private final int[] barChunk;
    private final long[] barTransfer;
    private final long[] barStartNs;
    private final long[] barEndNs;
    private final long[] barBytes;
    private long barSequence;

    private UnsafeBuffer exportRecords;
    private final int exportCapacity;
    private long exportWritten;

    private final Map<Integer, BitSet> lanes = new LinkedHashMap<>();
    private final long[] stageCount = new long[Stage.COUNT];
    private final long[] stageBusyNs = new long[Stage.COUNT];
    private final DurationHistogram[] stageDurations = new DurationHistogram[Stage.COUNT];
    private final Int2ObjectHashMap<LinkRate> links = new Int2ObjectHashMap<>();
    private final Long2ObjectHashMap<Flight> flights = new Long2ObjectHashMap<>();
    private final ArrayDeque<Flight> flightPool = new ArrayDeque<>();
    private final long[] endedByPath = new long[TracedPath.COUNT];
    private final Map<Integer, Long> droppedByRank = new LinkedHashMap<>();
    private Map<Integer, String> rankNodes = Map.of();

    private long originNs = Long.MIN_VALUE;
    private long records;
    private long transferRecords;
    private long sampledOut;
    private long invalidRecords;
    private long untrackedFlights;
    private long periodStartNs;
    private long periodSeen;
    private long periodKept;
    private long stride = 1;
    private long lastRecordNs;
    private boolean ended;
    private long endedNs;

    /**
     * @param jobId   the job's id.
     * @param program what its ranks run.
     * @param size    its number of ranks.
     * @param context the bounds; concluded here.
     */
    public JobTrace(final String jobId, final String program, final int size, final DashboardContext context)
    {
        this.jobId = jobId;
        this.program = program;
        this.size = size;
        this.context = context.conclude();
        this.barCapacity = context.recentBars();
        this.barRank = new int[barCapacity];
        this.barStage = new byte[barCapacity];
        this.barChunk = new int[barCapacity];
        this.barTransfer = new long[barCapacity];
        this.barStartNs = new long[barCapacity];
        this.barEndNs = new long[barCapacity];
        this.barBytes = new long[barCapacity];
        this.exportCapacity = context.exportRecords();
        this.exportRecords = new UnsafeBuffer(new byte[Math.min(exportCapacity, FIRST_EXPORT_RECORDS) *
            StageRecord.LENGTH]);
        for (int i = 0; i < Stage.COUNT; i++)
        {
            stageDurations[i] = new DurationHistogram();
        }
    }

    /**
     * @return the job's id.
     */
    public String jobId()
    {
        return jobId;
    }

    /**
     * {@inheritDoc}
     */
    public synchronized void onRecord(final StageRecord record)
    {
        final int stage = record.stageOrdinal();
        final long startNs = record.startNs();
        final long endNs = record.endNs();
        if (stage < 0 || stage >= Stage.COUNT || endNs < startNs)
        {
            invalidRecords++;
            return;
        }
        records++;
        lastRecordNs = endNs;
        if (Long.MIN_VALUE == originNs)
        {
            originNs = startNs;
        }
        keepForExport(record);
        lanes.computeIfAbsent(record.rank(), rank -> new BitSet(Stage.COUNT)).set(stage);
        stageCount[stage]++;
        stageBusyNs[stage] += endNs - startNs;
        stageDurations[stage].record(endNs - startNs);
        progress(record, stage);
        sample(record, stage, System.nanoTime());
    }

    /**
     * {@inheritDoc}
     */
    public synchronized void onTransfer(final TransferRecord record)
    {
        transferRecords++;
        final long key = key(record.rank(), record.transferId());
        if (record.hasEnded())
        {
            final Flight flight = flights.remove(key);
            if (null != flight)
            {
                flightPool.push(flight);
            }
            final int path = record.pathOrdinal();
            if (path >= 0 && path < TracedPath.COUNT)
            {
                endedByPath[path]++;
            }
            if (record.isReceiving() && !record.hasFailed())
            {
                link(record.peer(), record.rank()).add(record.endNs(), record.bytes());
            }
            return;
        }
        Flight flight = flights.get(key);
        if (null == flight)
        {
            if (flights.size() >= context.maxFlights())
            {
                untrackedFlights++;
                return;
            }
            flight = flightPool.isEmpty() ? new Flight() : flightPool.pop();
            flight.key = key;
            flight.doneBytes = 0;
            flight.doneChunks = 0;
            flights.put(key, flight);
        }
        flight.rank = record.rank();
        flight.peer = record.peer();
        flight.path = record.pathOrdinal();
        flight.receiving = record.isReceiving();
        flight.bytes = record.bytes();
        flight.chunks = record.chunks();
        flight.startNs = record.startNs();
    }

    /**
     * Sets the time the page counts from, unless a record came first; for a job whose records come from several
     * nodes, whose batches arrive in any order: the first to arrive need not be the earliest.
     *
     * @param originNs {@link System#nanoTime()} of the job's start, or earlier.
     */
    public synchronized void startsAt(final long originNs)
    {
        if (Long.MIN_VALUE == this.originNs)
        {
            this.originNs = originNs;
        }
    }

    /**
     * Names the node of each rank, for a job across nodes; shown beside the ranks.
     *
     * @param rankNodes each rank's node.
     */
    public synchronized void rankNodes(final Map<Integer, String> rankNodes)
    {
        this.rankNodes = Map.copyOf(rankNodes);
    }

    /**
     * {@inheritDoc}
     */
    public synchronized void droppedByRank(final int rank, final long dropped)
    {
        droppedByRank.put(rank, dropped);
    }

    /**
     * Marks the job ended: nothing more will come.
     */
    public synchronized void end()
    {
        if (!ended)
        {
            ended = true;
            endedNs = System.nanoTime();
            flights.values().forEach(flightPool::push);
            flights.clear();
        }
    }

    /**
     * @return whether the job has ended.
     */
    public synchronized boolean hasEnded()
    {
        return ended;
    }

    /**
     * @return the sequence number of the newest bar kept; a frame after it has no bars.
     */
    public synchronized long barSequence()
    {
        return barSequence;
    }

    /**
     * One update for a browser, as a JSON object: the bars kept after {@code afterBar} (at most
     * {@link DashboardContext#maxBarsPerFrame()}, the newest, with how many were passed over), the lanes, the stage
     * figures, the link rates, the transfers in flight and the counters of what was sampled and dropped.
     *
     * @param afterBar the sequence of the last bar the browser has.
     * @param nowNs    {@link System#nanoTime()} now.
     * @return the frame.
     */
    public synchronized String frame(final long afterBar, final long nowNs)
    {
        final StringBuilder json = new StringBuilder(4096);
        json.append("{\"job\":");
        Json.appendString(json, jobId);
        json.append(",\"program\":");
        Json.appendString(json, program);
        json.append(",\"size\":").append(size).append(",\"state\":\"").append(ended ? "ended" : "running")
            .append("\",\"nowUs\":");
        appendMicros(json, (ended ? Math.min(nowNs, endedNs) : nowNs) - origin());
        json.append(",\"lastUs\":");
        appendMicros(json, 0 == records ? 0 : lastRecordNs - origin());
        final long skipped = appendBars(json, afterBar);
        json.append(",\"barSeq\":").append(barSequence);
        appendLanes(json);
        appendNodes(json);
        appendStages(json);
        appendLinks(json, nowNs);
        appendFlights(json, nowNs);
        json.append(",\"counters\":{\"records\":").append(records)
            .append(",\"transferRecords\":").append(transferRecords)
            .append(",\"barsKept\":").append(barSequence)
            .append(",\"sampledOut\":").append(sampledOut)
            .append(",\"stride\":").append(stride)
            .append(",\"maxBarsPerSecond\":").append(context.maxBarsPerSecond())
            .append(",\"skippedForView\":").append(skipped)
            .append(",\"droppedByRanks\":").append(droppedByRanks())
            .append(",\"invalid\":").append(invalidRecords)
            .append(",\"untrackedFlights\":").append(untrackedFlights)
            .append(",\"exportKept\":").append(Math.min(exportWritten, exportCapacity))
            .append(",\"exportOverwritten\":").append(Math.max(0, exportWritten - exportCapacity))
            .append("}}");
        return json.toString();
    }

    /**
     * Writes the kept stage records as a Chrome trace, the format of {@code stagecoach run --trace}.
     *
     * @param out where the JSON goes; flushed, not closed.
     * @return what was written.
     * @throws IOException when the output fails.
     */
    public ChromeTraceExport.Summary export(final Writer out) throws IOException
    {
        final List<StageRecordArray> sources;
        final Map<String, String> data = new LinkedHashMap<>();
        synchronized (this)
        {
            sources = exportSources();
            data.put("job", jobId);
            data.put("program", program);
            data.put("size", Integer.toString(size));
            data.put("source", "dashboard");
            data.put("exportOverwrittenRecords", Long.toString(Math.max(0, exportWritten - exportCapacity)));
        }
        return ChromeTraceExport.writeSources(sources, out, data);
    }

    private List<StageRecordArray> exportSources()
    {
        final int kept = (int)Math.min(exportWritten, exportCapacity);
        final int first = (int)((exportWritten - kept) % exportCapacity);
        final Map<Integer, Integer> counts = new LinkedHashMap<>();
        final StageRecord record = new StageRecord();
        for (int i = 0; i < kept; i++)
        {
            record.wrap(exportRecords, ((first + i) % exportCapacity) * StageRecord.LENGTH);
            counts.merge(record.rank(), 1, Integer::sum);
        }
        final Map<Integer, UnsafeBuffer> buffers = new LinkedHashMap<>();
        final Map<Integer, Integer> filled = new LinkedHashMap<>();
        counts.forEach((rank, count) ->
        {
            buffers.put(rank, new UnsafeBuffer(new byte[count * StageRecord.LENGTH]));
            filled.put(rank, 0);
        });
        for (int i = 0; i < kept; i++)
        {
            record.wrap(exportRecords, ((first + i) % exportCapacity) * StageRecord.LENGTH);
            final int rank = record.rank();
            final int at = filled.get(rank);
            record.copyTo(buffers.get(rank), at * StageRecord.LENGTH);
            filled.put(rank, at + 1);
        }
        final List<StageRecordArray> sources = new ArrayList<>();
        counts.forEach((rank, count) -> sources.add(new StageRecordArray(rank, buffers.get(rank), count,
            droppedByRank.getOrDefault(rank, 0L), 0)));
        return sources;
    }

    /**
     * @return the bytes the download's buffer holds now.
     */
    synchronized long exportBytesHeld()
    {
        return exportRecords.capacity();
    }

    private void keepForExport(final StageRecord record)
    {
        // the buffer grows by doubling up to the capacity: a short job holds what it wrote, not the whole capacity
        if (exportWritten < exportCapacity && exportWritten * StageRecord.LENGTH == exportRecords.capacity())
        {
            final byte[] grown = new byte[(int)Math.min(exportCapacity, 2 * exportWritten) * StageRecord.LENGTH];
            exportRecords.getBytes(0, grown, 0, exportRecords.capacity());
            exportRecords = new UnsafeBuffer(grown);
        }
        record.copyTo(exportRecords, (int)(exportWritten % exportCapacity) * StageRecord.LENGTH);
        exportWritten++;
    }

    /**
     * A chunk is done for a sender once its WIRE ends, for a receiver once it reached the device (H2D or UNPACK, one
     * of them per chunk) or its GET ended: the stage each side records last for a chunk.
     */
    private void progress(final StageRecord record, final int stage)
    {
        final boolean sendingDone = stage == Stage.WIRE.ordinal();
        final boolean receivingDone = stage == Stage.H2D.ordinal() || stage == Stage.UNPACK.ordinal() ||
            stage == Stage.GET.ordinal();
        if (sendingDone || receivingDone)
        {
            final Flight flight = flights.get(key(record.rank(), record.transferId()));
            if (null != flight && flight.receiving == receivingDone)
            {
                flight.doneBytes += record.bytes();
                flight.doneChunks++;
            }
        }
    }

    private void sample(final StageRecord record, final int stage, final long nowNs)
    {
        if (nowNs - periodStartNs >= SAMPLE_PERIOD_NS)
        {
            final long budget = budgetPerPeriod();
            stride = Math.max(1, (periodSeen + budget - 1) / budget);
            periodStartNs = nowNs;
            periodSeen = 0;
            periodKept = 0;
        }
        final boolean keep = periodSeen++ % stride == 0 && periodKept < budgetPerPeriod();
        if (!keep)
        {
            sampledOut++;
            return;
        }
        periodKept++;
        final int slot = (int)(barSequence % barCapacity);
        barRank[slot] = record.rank();
        barStage[slot] = (byte)stage;
        barChunk[slot] = record.chunk();
        barTransfer[slot] = record.transferId();
        barStartNs[slot] = record.startNs();
        barEndNs[slot] = record.endNs();
        barBytes[slot] = record.bytes();
        barSequence++;
    }

    private long budgetPerPeriod()
    {
        return Math.max(1, context.maxBarsPerSecond() * SAMPLE_PERIOD_NS / 1_000_000_000L);
    }

    private long appendBars(final StringBuilder json, final long afterBar)
    {
        final long oldest = Math.max(Math.max(0, afterBar), barSequence - barCapacity);
        final long first = Math.max(oldest, barSequence - context.maxBarsPerFrame());
        json.append(",\"bars\":[");
        for (long seq = first; seq < barSequence; seq++)
        {
            final int slot = (int)(seq % barCapacity);
            json.append(seq == first ? "[" : ",[").append(barRank[slot]).append(',').append(barStage[slot])
                .append(',').append(barChunk[slot]).append(',').append(barTransfer[slot]).append(',');
            appendMicros(json, barStartNs[slot] - origin());
            json.append(',');
            appendMicros(json, barEndNs[slot] - barStartNs[slot]);
            json.append(',').append(barBytes[slot]).append(']');
        }
        json.append(']');
        return first - Math.max(0, afterBar);
    }

    private void appendNodes(final StringBuilder json)
    {
        json.append(",\"nodes\":{");
        boolean first = true;
        for (final Map.Entry<Integer, String> entry : new TreeMap<>(rankNodes).entrySet())
        {
            json.append(first ? "\"" : ",\"").append(entry.getKey()).append("\":");
            Json.appendString(json, entry.getValue());
            first = false;
        }
        json.append('}');
    }

    private void appendLanes(final StringBuilder json)
    {
        json.append(",\"lanes\":[");
        boolean firstLane = true;
        for (final Map.Entry<Integer, BitSet> entry : lanes.entrySet())
        {
            for (int stage = entry.getValue().nextSetBit(0); stage >= 0; stage = entry.getValue().nextSetBit(stage + 1))
            {
                json.append(firstLane ? "[" : ",[").append(entry.getKey()).append(',').append(stage).append(']');
                firstLane = false;
            }
        }
        json.append("],\"stageNames\":[");
        for (int stage = 0; stage < Stage.COUNT; stage++)
        {
            json.append(stage == 0 ? "\"" : ",\"").append(Stage.of(stage).name()).append('"');
        }
        json.append(']');
    }

    private void appendStages(final StringBuilder json)
    {
        long busyNs = 0;
        for (final long stageNs : stageBusyNs)
        {
            busyNs += stageNs;
        }
        json.append(",\"stages\":[");
        boolean first = true;
        for (int stage = 0; stage < Stage.COUNT; stage++)
        {
            if (0 == stageCount[stage])
            {
                continue;
            }
            json.append(first ? "{" : ",{").append("\"stage\":\"").append(Stage.of(stage).name())
                .append("\",\"count\":").append(stageCount[stage]).append(",\"share\":")
                .append(Math.round(1000.0 * stageBusyNs[stage] / Math.max(1, busyNs)) / 10.0).append(",\"meanUs\":");
            appendMicros(json, stageBusyNs[stage] / stageCount[stage]);
            json.append(",\"p99Us\":");
            appendMicros(json, stageDurations[stage].percentileNs(0.99));
            json.append('}');
            first = false;
        }
        json.append(']');
    }

    private void appendLinks(final StringBuilder json, final long nowNs)
    {
        final List<LinkRate> sorted = new ArrayList<>(links.values());
        sorted.sort((a, b) -> a.from != b.from ? Integer.compare(a.from, b.from) : Integer.compare(a.to, b.to));
        json.append(",\"windowS\":").append(context.rateWindowNs() / 1_000_000_000.0).append(",\"links\":[");
        for (int i = 0; i < sorted.size(); i++)
        {
            final LinkRate link = sorted.get(i);
            final long atNs = ended ? Math.min(nowNs, endedNs) : nowNs;
            json.append(i == 0 ? "{" : ",{").append("\"from\":").append(link.from).append(",\"to\":").append(link.to)
                .append(",\"mbPerS\":").append(Math.round(link.bytesPerSecond(atNs, context.rateWindowNs()) / 1e4) /
                100.0).append(",\"avgMbPerS\":").append(Math.round(link.averageBytesPerSecond() / 1e4) / 100.0)
                .append(",\"bytes\":").append(link.totalBytes()).append(",\"messages\":")
                .append(link.messages()).append('}');
        }
        json.append(']');
    }

    private void appendFlights(final StringBuilder json, final long nowNs)
    {
        final List<Flight> rows = new ArrayList<>(flights.size());
        final List<Long> stale = new ArrayList<>();
        final long[] byPath = new long[TracedPath.COUNT];
        for (final Flight flight : flights.values())
        {
            if (nowNs - flight.startNs > STALE_FLIGHT_NS)
            {
                stale.add(flight.key);
                continue;
            }
            rows.add(flight);
            if (flight.path >= 0 && flight.path < TracedPath.COUNT)
            {
                byPath[flight.path]++;
            }
        }
        stale.forEach(key -> flightPool.push(flights.remove((long)key)));
        rows.sort((a, b) -> Long.compare(a.startNs, b.startNs));
        json.append(",\"flights\":{\"total\":").append(rows.size()).append(",\"byPath\":{");
        for (int path = 0; path < TracedPath.COUNT; path++)
        {
            json.append(path == 0 ? "\"" : ",\"").append(TracedPath.of(path).name()).append("\":[")
                .append(byPath[path]).append(',').append(endedByPath[path]).append(']');
        }
        json.append("},\"rows\":[");
        for (int i = 0; i < Math.min(rows.size(), MAX_FLIGHT_ROWS); i++)
        {
            final Flight flight = rows.get(i);
            json.append(i == 0 ? "{" : ",{").append("\"rank\":").append(flight.rank).append(",\"peer\":")
                .append(flight.peer).append(",\"receiving\":").append(flight.receiving).append(",\"path\":\"")
                .append(flight.path >= 0 && flight.path < TracedPath.COUNT ? TracedPath.of(flight.path).name() : "?")
                .append("\",\"bytes\":").append(flight.bytes).append(",\"chunks\":").append(flight.chunks)
                .append(",\"doneChunks\":").append(flight.doneChunks).append(",\"progress\":")
                .append(Math.round(1000.0 * Math.min(flight.doneBytes, flight.bytes) / Math.max(1, flight.bytes)) /
                10.0).append(",\"ageMs\":").append((nowNs - flight.startNs) / 1_000_000).append('}');
        }
        json.append("]}");
    }

    private LinkRate link(final int from, final int to)
    {
        final int key = from * 65_536 + to;
        LinkRate link = links.get(key);
        if (null == link)
        {
            link = new LinkRate(from, to);
            links.put(key, link);
        }
        return link;
    }

    private long droppedByRanks()
    {
        long dropped = 0;
        for (final long count : droppedByRank.values())
        {
            dropped += count;
        }
        return dropped;
    }

    private long origin()
    {
        return Long.MIN_VALUE == originNs ? System.nanoTime() : originNs;
    }

    private static long key(final int rank, final long transferId)
    {
        return ((long)rank << 40) ^ transferId;
    }

    static void appendMicros(final StringBuilder to, final long nanos)
    {
        if (nanos < 0)
        {
            to.append('-');
        }
        to.append(Math.abs(nanos / 1000));
        final long fraction = Math.abs(nanos % 1000);
        to.append('.').append((char)('0' + fraction / 100)).append((char)('0' + fraction / 10 % 10))
            .append((char)('0' + fraction % 10));
    }
}
