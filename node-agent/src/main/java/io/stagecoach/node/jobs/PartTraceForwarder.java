package io.stagecoach.node.jobs;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiConsumer;

import io.stagecoach.node.dashboard.DashboardJobObserver;
import io.stagecoach.node.dashboard.LiveTraceCollector;
import io.stagecoach.node.dashboard.LiveTraceSink;
import io.stagecoach.node.launch.JobObserver;
import io.stagecoach.pipeline.trace.StageRecord;
import io.stagecoach.pipeline.trace.TransferRecord;
import org.agrona.concurrent.UnsafeBuffer;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Scheduler;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends one node's part of a job's live trace to the dashboard of the agent the job was submitted to: gives the part's
 * ranks a live folder, reads their rings ({@link LiveTraceCollector}) into batches of up to {@link #BATCH_RECORDS}
 * records and sends each to the job's {@link JobTraceMerge}, waiting for its acknowledgement before reading on. While
 * it waits the ranks' rings hold what they record, and drop and count what does not fit, so a slow link or a busy
 * dashboard costs the ranks nothing and nothing piles up here. A part with nothing to send still sends an empty batch
 * every {@link #HEARTBEAT}. A batch not acknowledged within {@link #ACK_WAIT} (the dashboard's agent busy or gone)
 * makes it pause for {@link #BACK_OFF}: what it reads meanwhile it counts as dropped by the record's rank, which the
 * page shows, and then it tries again; the last batch is always sent.
 */
final class PartTraceForwarder implements JobObserver, LiveTraceSink
{
    /** Records in one batch at most. */
    static final int BATCH_RECORDS = 2048;
    /** How long a batch waits for its acknowledgement. */
    static final Duration ACK_WAIT = Duration.ofSeconds(2);
    /** How often a part sends a batch at least. */
    static final Duration HEARTBEAT = Duration.ofSeconds(5);
    /** How long a part sends nothing after a batch that was not acknowledged. */
    static final Duration BACK_OFF = Duration.ofSeconds(5);

    private static final Logger LOG = LoggerFactory.getLogger(PartTraceForwarder.class);

    private final String node;
    private final ActorRef<JobTraceMerge.Command> merge;
    private final Scheduler scheduler;
    private final Duration ackWait;
    private final long backOffNs;
    private final long epochOffsetNs = JobTraceMerge.epochOffsetNs();
    private final byte[] batch = new byte[BATCH_RECORDS * JobTraceMerge.ENTRY_LENGTH];
    private final UnsafeBuffer buffer = new UnsafeBuffer(batch);
    private final Map<Integer, long[]> dropped = new TreeMap<>();
    private String jobId = "";
    private LiveTraceCollector collector;
    private boolean droppedChanged;
    private long resumeNs;
    private long unacknowledged;
    private int count;
    private long sequence;
    private long lastSentNs = System.nanoTime();

    /**
     * @param node      this node's name.
     * @param merge     the job's merge on the agent it was submitted to.
     * @param scheduler for the acknowledgements' timeouts.
     */
    PartTraceForwarder(final String node, final ActorRef<JobTraceMerge.Command> merge, final Scheduler scheduler)
    {
        this(node, merge, scheduler, ACK_WAIT, BACK_OFF);
    }

    /**
     * @param node      this node's name.
     * @param merge     the job's merge on the agent it was submitted to.
     * @param scheduler for the acknowledgements' timeouts.
     * @param ackWait   how long a batch waits for its acknowledgement.
     * @param backOff   how long it sends nothing after a batch that was not acknowledged.
     */
    PartTraceForwarder(final String node, final ActorRef<JobTraceMerge.Command> merge, final Scheduler scheduler,
        final Duration ackWait, final Duration backOff)
    {
        this.node = node;
        this.merge = merge;
        this.scheduler = scheduler;
        this.ackWait = ackWait;
        this.backOffNs = backOff.toNanos();
    }

    public void jobStarting(
        final String jobId, final String mainClass, final int size, final Path jobFolder,
        final BiConsumer<String, String> environment)
    {
        this.jobId = jobId;
        collector = LiveTraceCollector.start(DashboardJobObserver.createLiveFolder(jobFolder, environment), jobId,
            this);
    }

    public void ranksEnded()
    {
        if (null != collector)
        {
            collector.close();
            collector = null;
        }
    }

    public void onRecord(final StageRecord record)
    {
        if (pausing())
        {
            lost(record.rank());
            return;
        }
        makeRoom();
        buffer.putByte(count * JobTraceMerge.ENTRY_LENGTH, JobTraceMerge.STAGE_RECORD);
        record.copyTo(buffer, count * JobTraceMerge.ENTRY_LENGTH + 1);
        count++;
    }

    public void onTransfer(final TransferRecord record)
    {
        if (pausing())
        {
            lost(record.rank());
            return;
        }
        makeRoom();
        buffer.putByte(count * JobTraceMerge.ENTRY_LENGTH, JobTraceMerge.TRANSFER_RECORD);
        record.copyTo(buffer, count * JobTraceMerge.ENTRY_LENGTH + 1);
        count++;
    }

    /**
     * @param rank           a rank.
     * @param droppedRecords the records its ring dropped so far; reported with those this part left out.
     */
    public void droppedByRank(final int rank, final long droppedRecords)
    {
        final long[] counts = counts(rank);
        if (counts[0] != droppedRecords)
        {
            counts[0] = droppedRecords;
            droppedChanged = true;
        }
    }

    public void flush()
    {
        if (!pausing() && (count > 0 || droppedChanged || System.nanoTime() - lastSentNs >= HEARTBEAT.toNanos()))
        {
            send(false);
        }
    }

    public void end()
    {
        send(true);
    }

    private void makeRoom()
    {
        if (count == BATCH_RECORDS)
        {
            send(false);
        }
    }

    /**
     * @return the batches not acknowledged so far.
     */
    long unacknowledged()
    {
        return unacknowledged;
    }

    private boolean pausing()
    {
        if (0 == resumeNs)
        {
            return false;
        }
        if (System.nanoTime() - resumeNs < 0)
        {
            return true;
        }
        resumeNs = 0;
        return false;
    }

    private void lost(final int rank)
    {
        counts(rank)[1]++;
        droppedChanged = true;
    }

    /**
     * @return the rank's records dropped by its ring (0) and left out here (1).
     */
    private long[] counts(final int rank)
    {
        long[] counts = dropped.get(rank);
        if (null == counts)
        {
            counts = new long[2];
            dropped.put(rank, counts);
        }
        return counts;
    }

    private void send(final boolean last)
    {
        final byte[] records = Arrays.copyOf(batch, count * JobTraceMerge.ENTRY_LENGTH);
        final int[] ranks = new int[dropped.size()];
        final long[] counts = new long[dropped.size()];
        int i = 0;
        for (final Map.Entry<Integer, long[]> entry : dropped.entrySet())
        {
            ranks[i] = entry.getKey();
            counts[i++] = entry.getValue()[0] + entry.getValue()[1];
        }
        count = 0;
        droppedChanged = false;
        lastSentNs = System.nanoTime();
        final long number = ++sequence;
        try
        {
            AskPattern.<JobTraceMerge.Command, JobTraceMerge.TraceAck>ask(merge,
                replyTo -> new JobTraceMerge.PartTrace(node, number, epochOffsetNs, records, ranks, counts, last,
                    replyTo), ackWait, scheduler)
                .toCompletableFuture().get(ackWait.toMillis() + 500, TimeUnit.MILLISECONDS);
        }
        catch (final ExecutionException | TimeoutException | RuntimeException ex)
        {
            missed(records.length / JobTraceMerge.ENTRY_LENGTH, ex);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            missed(records.length / JobTraceMerge.ENTRY_LENGTH, ex);
        }
    }

    /**
     * A batch went without an acknowledgement (the merge busy, gone, or this agent stopping): pause, so that the
     * reading thread does not wait on every batch, and say so once.
     */
    private void missed(final int records, final Exception ex)
    {
        if (0 == unacknowledged++)
        {
            LOG.warn("job {}: the job's dashboard did not acknowledge a batch of {} records of node {} within {} ms " +
                "({}); this node pauses its part of the trace for {} ms at a time while that lasts, counting what it " +
                "leaves out as dropped", jobId, records, node, ackWait.toMillis(), ex.toString(),
                TimeUnit.NANOSECONDS.toMillis(backOffNs));
        }
        resumeNs = System.nanoTime() + backOffNs;
        if (0 == resumeNs)
        {
            resumeNs = 1;
        }
    }
}
