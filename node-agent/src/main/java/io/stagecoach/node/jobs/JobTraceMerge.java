package io.stagecoach.node.jobs;

import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.Set;

import io.stagecoach.node.dashboard.JobTrace;
import io.stagecoach.pipeline.trace.StageRecord;
import io.stagecoach.pipeline.trace.TransferRecord;
import org.agrona.concurrent.UnsafeBuffer;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;

/**
 * The live trace of a job across nodes, on the dashboard of the agent the job was submitted to: each node's part
 * sends batches of its ranks' stage and transfer records ({@link PartTrace}); this moves their times onto this node's
 * clock (through the wall clocks of the two nodes), hands them to the job's {@link JobTrace} and acknowledges each
 * batch, so that a node sends its next batch only once this one is in: a node whose ranks record faster than this
 * takes drops records in its ranks' rings and counts them, and nothing here grows. The trace ends once every node
 * sent its last batch, {@link #END_GRACE} after the job's coordinator stopped ({@link JobEnded}: the job ended, or
 * never started, and a lost node sends no last batch), or once no node sent anything for {@link #IDLE} (a running
 * part sends at least every {@link PartTraceForwarder#HEARTBEAT}).
 */
final class JobTraceMerge
{
    /** How long the merge waits for any node before it ends the trace. */
    static final Duration IDLE = Duration.ofSeconds(30);
    /** How long after the job's end the merge waits for the nodes' last batches. */
    static final Duration END_GRACE = Duration.ofSeconds(5);
    /** Bytes of one record in a batch: its kind, then its 48 bytes. */
    static final int ENTRY_LENGTH = 1 + StageRecord.LENGTH;
    /** The kind of a stage record. */
    static final byte STAGE_RECORD = 1;
    /** The kind of a transfer record. */
    static final byte TRANSFER_RECORD = 2;

    private final JobTrace trace;
    private final Set<String> nodes;
    private final Set<String> finished = new HashSet<>();
    private final TimerScheduler<Command> timers;
    private final long epochOffsetNs = epochOffsetNs();
    private final StageRecord record = new StageRecord();
    private final TransferRecord transfer = new TransferRecord();
    private final UnsafeBuffer buffer = new UnsafeBuffer(0, 0);
    private boolean jobEnded;

    private JobTraceMerge(final JobTrace trace, final Set<String> nodes, final TimerScheduler<Command> timers)
    {
        this.trace = trace;
        this.nodes = Set.copyOf(nodes);
        this.timers = timers;
    }

    /**
     * @param trace the job's trace on this node's dashboard.
     * @param nodes the nodes that run its ranks.
     * @return the behavior, which stops once the trace ended.
     */
    static Behavior<Command> create(final JobTrace trace, final Set<String> nodes)
    {
        trace.startsAt(System.nanoTime());
        return Behaviors.withTimers(timers ->
        {
            final JobTraceMerge merge = new JobTraceMerge(trace, nodes, timers);
            timers.startSingleTimer(Idle.INSTANCE, IDLE);
            return merge.behavior();
        });
    }

    /**
     * @return this node's wall clock minus its {@link System#nanoTime()}, in nanoseconds.
     */
    static long epochOffsetNs()
    {
        final Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000_000L + now.getNano() - System.nanoTime();
    }

    private Behavior<Command> behavior()
    {
        return Behaviors.receive(Command.class)
            .onMessage(PartTrace.class, this::onBatch)
            .onMessage(JobEnded.class, this::onJobEnded)
            .onMessage(Idle.class, idle -> Behaviors.stopped())
            .onSignal(PostStop.class, signal ->
            {
                trace.end();
                return Behaviors.same();
            })
            .build();
    }

    private Behavior<Command> onJobEnded(final JobEnded ended)
    {
        if (!jobEnded)
        {
            jobEnded = true;
            timers.startSingleTimer(Idle.INSTANCE, END_GRACE);
        }
        return Behaviors.same();
    }

    private Behavior<Command> onBatch(final PartTrace batch)
    {
        if (!jobEnded)
        {
            timers.startSingleTimer(Idle.INSTANCE, IDLE);
        }
        final long deltaNs = batch.epochOffsetNs() - epochOffsetNs;
        buffer.wrap(batch.records());
        for (int at = 0; at + ENTRY_LENGTH <= batch.records().length; at += ENTRY_LENGTH)
        {
            StageRecord.shiftClock(buffer, at + 1, deltaNs);
            if (TRANSFER_RECORD == buffer.getByte(at))
            {
                trace.onTransfer(transfer.wrap(buffer, at + 1));
            }
            else
            {
                trace.onRecord(record.wrap(buffer, at + 1));
            }
        }
        for (int i = 0; i < batch.droppedRanks().length; i++)
        {
            trace.droppedByRank(batch.droppedRanks()[i], batch.dropped()[i]);
        }
        batch.replyTo().tell(new TraceAck(batch.sequence()));
        if (batch.last())
        {
            finished.add(batch.node());
            if (finished.containsAll(nodes))
            {
                return Behaviors.stopped();
            }
        }
        return Behaviors.same();
    }

    /**
     * What the merge takes.
     */
    sealed interface Command
    {
    }

    /**
     * A batch of a node's records.
     *
     * @param node          the node.
     * @param sequence      the batch's number, from 1, echoed in the acknowledgement.
     * @param epochOffsetNs the node's wall clock minus its {@link System#nanoTime()}.
     * @param records       the records, {@link #ENTRY_LENGTH} bytes each: the kind, then the record.
     * @param droppedRanks  ranks whose count of dropped records follows.
     * @param dropped       each one's records dropped so far.
     * @param last          whether the node's ranks have ended and this is its last batch.
     * @param replyTo       told {@link TraceAck} once the batch is in.
     */
    record PartTrace(String node, long sequence, long epochOffsetNs, byte[] records, int[] droppedRanks,
        long[] dropped, boolean last, ActorRef<TraceAck> replyTo) implements Command, JobMessage
    {
    }

    /**
     * A batch is in.
     *
     * @param sequence its number.
     */
    record TraceAck(long sequence) implements JobMessage
    {
    }

    /**
     * The job's coordinator stopped: the nodes' last batches have {@link #END_GRACE} to come.
     */
    enum JobEnded implements Command
    {
        INSTANCE
    }

    private enum Idle implements Command
    {
        INSTANCE
    }
}
