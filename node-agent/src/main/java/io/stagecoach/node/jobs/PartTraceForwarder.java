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
 * every {@link #HEARTBEAT}; after a batch that was not acknowledged within {@link #ACK_WAIT} it sends no more but its
 * last.
 */
final class PartTraceForwarder implements JobObserver, LiveTraceSink
{
    /** Records in one batch at most. */
    static final int BATCH_RECORDS = 2048;
    /** How long a batch waits for its acknowledgement. */
    static final Duration ACK_WAIT = Duration.ofSeconds(2);
    /** How often a part sends a batch at least. */
    static final Duration HEARTBEAT = Duration.ofSeconds(5);

    private static final Logger LOG = LoggerFactory.getLogger(PartTraceForwarder.class);

    private final String node;
    private final ActorRef<JobTraceMerge.Command> merge;
    private final Scheduler scheduler;
    private final long epochOffsetNs = JobTraceMerge.epochOffsetNs();
    private final byte[] batch = new byte[BATCH_RECORDS * JobTraceMerge.ENTRY_LENGTH];
    private final UnsafeBuffer buffer = new UnsafeBuffer(batch);
    private final Map<Integer, Long> dropped = new TreeMap<>();
    private String jobId = "";
    private LiveTraceCollector collector;
    private boolean droppedChanged;
    private boolean stopped;
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
        this.node = node;
        this.merge = merge;
        this.scheduler = scheduler;
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
        makeRoom();
        buffer.putByte(count * JobTraceMerge.ENTRY_LENGTH, JobTraceMerge.STAGE_RECORD);
        record.copyTo(buffer, count * JobTraceMerge.ENTRY_LENGTH + 1);
        count++;
    }

    public void onTransfer(final TransferRecord record)
    {
        makeRoom();
        buffer.putByte(count * JobTraceMerge.ENTRY_LENGTH, JobTraceMerge.TRANSFER_RECORD);
        record.copyTo(buffer, count * JobTraceMerge.ENTRY_LENGTH + 1);
        count++;
    }

    public void droppedByRank(final int rank, final long droppedRecords)
    {
        final Long known = dropped.get(rank);
        if (null == known || known != droppedRecords)
        {
            dropped.put(rank, droppedRecords);
            droppedChanged = true;
        }
    }

    public void flush()
    {
        if (count > 0 || droppedChanged || System.nanoTime() - lastSentNs >= HEARTBEAT.toNanos())
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

    private void send(final boolean last)
    {
        final byte[] records = Arrays.copyOf(batch, count * JobTraceMerge.ENTRY_LENGTH);
        final int[] ranks = new int[dropped.size()];
        final long[] counts = new long[dropped.size()];
        int i = 0;
        for (final Map.Entry<Integer, Long> entry : dropped.entrySet())
        {
            ranks[i] = entry.getKey();
            counts[i++] = entry.getValue();
        }
        count = 0;
        droppedChanged = false;
        lastSentNs = System.nanoTime();
        if (stopped && !last)
        {
            return;
        }
        final long number = ++sequence;
        try
        {
            AskPattern.<JobTraceMerge.Command, JobTraceMerge.TraceAck>ask(merge,
                replyTo -> new JobTraceMerge.PartTrace(node, number, epochOffsetNs, records, ranks, counts, last,
                    replyTo), ACK_WAIT, scheduler)
                .toCompletableFuture().get(ACK_WAIT.toMillis() + 500, TimeUnit.MILLISECONDS);
        }
        catch (final ExecutionException | TimeoutException ex)
        {
            if (!stopped)
            {
                stopped = true;
                LOG.warn("job {}: the dashboard of the job did not take the trace of node {} within {} ms ({}); " +
                    "this node's ranks are left out of it from now on", jobId, node, ACK_WAIT.toMillis(),
                    ex.toString());
            }
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }
}
