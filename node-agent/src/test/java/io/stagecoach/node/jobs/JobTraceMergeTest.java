package io.stagecoach.node.jobs;

import java.io.NotSerializableException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.stagecoach.node.dashboard.DashboardContext;
import io.stagecoach.node.dashboard.JobTrace;
import io.stagecoach.node.dashboard.TraceFrames;
import io.stagecoach.pipeline.trace.Stage;
import io.stagecoach.pipeline.trace.StageRecord;
import io.stagecoach.pipeline.trace.StageRecordHandler;
import io.stagecoach.pipeline.trace.StageRing;
import io.stagecoach.pipeline.trace.TracedPath;
import io.stagecoach.pipeline.trace.TransferRecord;
import org.agrona.concurrent.UnsafeBuffer;
import org.apache.pekko.actor.ExtendedActorSystem;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class JobTraceMergeTest
{
    private static final long MIB = 1024 * 1024;

    private final ActorSystem<Void> system = ActorSystem.create(Behaviors.empty(), "merge-test");
    private final StageRing ring0 = new StageRing(0, StageRing.MAX_CAPACITY_BYTES >> 6);
    private final StageRing ring1 = new StageRing(1, StageRing.MAX_CAPACITY_BYTES >> 6);

    @AfterEach
    void stop() throws Exception
    {
        system.terminate();
        system.getWhenTerminated().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    @Test
    void shouldShowTheRecordsOfEveryNodeAndEndTheTraceOnceEachSentItsLast() throws Exception
    {
        final JobTrace trace = new JobTrace("j1", "bw", 2, new DashboardContext());
        trace.rankNodes(Map.of(0, "node-b", 1, "node-c"));
        final ActorRef<JobTraceMerge.Command> merge = merge(trace, Set.of("node-b", "node-c"));
        final PartTraceForwarder b = new PartTraceForwarder("node-b", merge, system.scheduler());
        final PartTraceForwarder c = new PartTraceForwarder("node-c", merge, system.scheduler());
        final long startNs = System.nanoTime();
        ring0.transferBegun(5, 1, TracedPath.STAGED, false, 4 * MIB, 4, startNs);
        for (int chunk = 0; chunk < PartTraceForwarder.BATCH_RECORDS + 100; chunk++)
        {
            ring0.record(5, chunk, Stage.WIRE, startNs + chunk * 1_000L, startNs + chunk * 1_000L + 900, MIB, 0);
            ring1.record(9, chunk, Stage.H2D, startNs + chunk * 1_000L + 500, startNs + chunk * 1_000L + 950, MIB, 0);
            if (chunk % 1_000 == 999)
            {
                TraceFrames.drain(ring0, b);
                TraceFrames.drain(ring1, c);
            }
        }
        TraceFrames.drain(ring0, b);
        TraceFrames.drain(ring1, c);
        b.droppedByRank(0, 7);
        b.flush();
        c.flush();

        final String frame = trace.frame(0, System.nanoTime());
        assertEquals(2 * (PartTraceForwarder.BATCH_RECORDS + 100), TraceFrames.number(frame, "records"), frame);
        assertEquals(1, TraceFrames.number(frame, "transferRecords"), frame);
        assertEquals(7, TraceFrames.number(frame, "droppedByRanks"), frame);
        assertTrue(frame.contains("\"lanes\":[[0," + Stage.WIRE.ordinal() + "],[1," + Stage.H2D.ordinal() + "]]"),
            frame);
        assertTrue(frame.contains("\"nodes\":{\"0\":\"node-b\",\"1\":\"node-c\"}"), frame);
        assertTrue(frame.contains("\"state\":\"running\""), frame);

        b.end();
        Thread.sleep(100);
        assertFalse(trace.hasEnded(), "node-c has not sent its last");
        c.end();
        awaitEnded(trace);
    }

    @Test
    void shouldMoveTheRecordsOfAnotherNodeOntoThisNodesClock() throws Exception
    {
        final JobTrace trace = new JobTrace("j2", "bw", 2, new DashboardContext());
        final ActorRef<JobTraceMerge.Command> merge = merge(trace, Set.of("b", "c"));
        final long startNs = System.nanoTime();
        ring0.record(5, 0, Stage.WIRE, startNs, startNs + 1_000, MIB, 0);
        ring1.record(9, 0, Stage.H2D, startNs, startNs + 1_000, MIB, 0);
        final long offsetNs = JobTraceMerge.epochOffsetNs();
        send(merge, "b", offsetNs, batchOf(ring0));
        send(merge, "c", offsetNs + 5_000_000, batchOf(ring1));

        final String frame = trace.frame(0, System.nanoTime());
        final Matcher bars = Pattern.compile("\\[(\\d),\\d+,0,\\d+,(-?[0-9.]+),").matcher(frame);
        final double[] startUs = new double[2];
        while (bars.find())
        {
            startUs[Integer.parseInt(bars.group(1))] = Double.parseDouble(bars.group(2));
        }
        assertEquals(5_000, startUs[1] - startUs[0], 200, "node c's clock is 5 ms ahead of node b's: " + frame);
    }

    @Test
    void shouldPauseAfterABatchThatWasNotAcknowledgedCountWhatItLeavesOutAndThenGoOn() throws Exception
    {
        final JobTrace trace = new JobTrace("j3", "bw", 1, new DashboardContext());
        final ActorRef<JobTraceMerge.Command> merge = merge(trace, Set.of("b"));
        final AtomicInteger seen = new AtomicInteger();
        final ActorRef<JobTraceMerge.Command> firstLost = system.systemActorOf(
            Behaviors.<JobTraceMerge.Command>receiveMessage(message ->
            {
                if (seen.incrementAndGet() > 1)
                {
                    merge.tell(message);
                }
                return Behaviors.same();
            }), "first-lost", Props.empty());
        final PartTraceForwarder forwarder = new PartTraceForwarder("b", firstLost, system.scheduler(),
            Duration.ofMillis(300), Duration.ofMillis(1_000));
        ring0.record(5, 0, Stage.WIRE, 1_000, 2_000, MIB, 0);
        TraceFrames.drain(ring0, forwarder);
        final long firstNs = System.nanoTime();
        forwarder.flush();
        assertTrue(System.nanoTime() - firstNs >= TimeUnit.MILLISECONDS.toNanos(250), "waited for the first ack");
        assertEquals(1, forwarder.unacknowledged());

        for (int chunk = 1; chunk <= 10; chunk++)
        {
            ring0.record(5, chunk, Stage.WIRE, 1_000 + chunk * 2_000L, 2_000 + chunk * 2_000L, MIB, 0);
        }
        TraceFrames.drain(ring0, forwarder);
        final long pausedNs = System.nanoTime();
        forwarder.flush();
        assertTrue(System.nanoTime() - pausedNs < TimeUnit.MILLISECONDS.toNanos(200), "no wait while it pauses");
        assertEquals(1, seen.get(), "nothing sent while it pauses");

        Thread.sleep(1_100);
        ring0.record(5, 11, Stage.WIRE, 30_000, 31_000, MIB, 0);
        TraceFrames.drain(ring0, forwarder);
        forwarder.flush();
        assertEquals(1, forwarder.unacknowledged(), "acknowledged again after the pause");
        final String frame = trace.frame(0, System.nanoTime());
        assertEquals(1, TraceFrames.number(frame, "records"), frame);
        assertEquals(10, TraceFrames.number(frame, "droppedByRanks"),
            "the 10 records left out while it paused: " + frame);
        forwarder.end();
        awaitEnded(trace);
    }

    @Test
    void shouldEndTheTraceShortlyAfterTheJobEndedThoughANodeSentNoLastBatch() throws Exception
    {
        final JobTrace trace = new JobTrace("j4", "bw", 2, new DashboardContext());
        final ActorRef<JobTraceMerge.Command> merge = merge(trace, Set.of("b", "c"));
        final PartTraceForwarder b = new PartTraceForwarder("b", merge, system.scheduler());
        b.end();
        merge.tell(JobTraceMerge.JobEnded.INSTANCE);
        Thread.sleep(JobTraceMerge.END_GRACE.toMillis() / 2);
        assertFalse(trace.hasEnded(), "c's last batch may still come");
        awaitEnded(trace);
    }

    private ActorRef<JobTraceMerge.Command> merge(final JobTrace trace, final Set<String> nodes)
    {
        return system.systemActorOf(JobTraceMerge.create(trace, nodes), "merge", Props.empty());
    }

    private static void awaitEnded(final JobTrace trace) throws InterruptedException
    {
        final long deadlineNs = System.nanoTime() + JobTraceMerge.END_GRACE.toNanos() + TimeUnit.SECONDS.toNanos(5);
        while (!trace.hasEnded() && System.nanoTime() - deadlineNs < 0)
        {
            Thread.sleep(10);
        }
        assertTrue(trace.hasEnded(), "the trace ended");
    }

    @Test
    void shouldWriteAndReadEveryTraceMessageAndRefuseABatchOfBrokenRecords() throws Exception
    {
        final JobMessageSerializer serializer =
            new JobMessageSerializer((ExtendedActorSystem)Adapter.toClassic(system));
        final ActorRef<JobTraceMerge.TraceAck> replyTo =
            system.systemActorOf(Behaviors.ignore(), "reply", Props.empty());
        final byte[] records = new byte[2 * JobTraceMerge.ENTRY_LENGTH];
        records[0] = JobTraceMerge.STAGE_RECORD;
        records[JobTraceMerge.ENTRY_LENGTH] = JobTraceMerge.TRANSFER_RECORD;
        records[7] = 42;
        final JobTraceMerge.PartTrace batch = new JobTraceMerge.PartTrace("node-b", 3, -17, records,
            new int[] { 0, 4 }, new long[] { 5, 6 }, true, replyTo);
        final JobTraceMerge.PartTrace read = (JobTraceMerge.PartTrace)serializer.fromBinary(
            serializer.toBinary(batch), serializer.manifest(batch));
        assertEquals("node-b", read.node());
        assertEquals(3, read.sequence());
        assertEquals(-17, read.epochOffsetNs());
        assertArrayEquals(records, read.records());
        assertArrayEquals(new int[] { 0, 4 }, read.droppedRanks());
        assertArrayEquals(new long[] { 5, 6 }, read.dropped());
        assertTrue(read.last());
        assertEquals(replyTo, read.replyTo());

        final JobTraceMerge.TraceAck ack = new JobTraceMerge.TraceAck(3);
        assertEquals(ack, serializer.fromBinary(serializer.toBinary(ack), serializer.manifest(ack)));

        final JobTraceMerge.PartTrace broken = new JobTraceMerge.PartTrace("node-b", 4, 0, new byte[5], new int[0],
            new long[0], false, replyTo);
        final NotSerializableException refused = assertThrows(NotSerializableException.class,
            () -> serializer.fromBinary(serializer.toBinary(broken), serializer.manifest(broken)));
        assertTrue(refused.getMessage().contains("a trace batch of 5 bytes"), refused.getMessage());

        final ActorRef<JobTraceMerge.Command> merge = system.systemActorOf(Behaviors.ignore(), "merge",
            Props.empty());
        final JobRequest request = new JobRequest(2, HostSlots.parseList("node-b:2"), "bw", List.of(), "",
            List.of(), Map.of(), false, false, 0);
        for (final ActorRef<JobTraceMerge.Command> to : java.util.Arrays.asList(merge, null))
        {
            final JobsBehavior.StartPart start = new JobsBehavior.StartPart("j", system.systemActorOf(
                Behaviors.<JobCoordinator.Command>ignore(), "coordinator-" + (null == to), Props.empty()), request,
                new int[] { 0, 1 }, "10.0.0.1:4000", "secret", to);
            final JobsBehavior.StartPart startRead = (JobsBehavior.StartPart)serializer.fromBinary(
                serializer.toBinary(start), serializer.manifest(start));
            if (null == to)
            {
                assertNull(startRead.trace());
                final byte[] bytes = serializer.toBinary(start);
                final byte[] earlier = java.util.Arrays.copyOf(bytes, bytes.length - 4);
                assertNull(((JobsBehavior.StartPart)serializer.fromBinary(earlier, serializer.manifest(start))).trace(),
                    "a start of an agent that writes no trace");
            }
            else
            {
                assertEquals(to, startRead.trace());
            }
        }
    }

    private void send(final ActorRef<JobTraceMerge.Command> merge, final String node, final long offsetNs,
        final byte[] records) throws Exception
    {
        AskPattern.<JobTraceMerge.Command, JobTraceMerge.TraceAck>ask(merge, replyTo ->
            new JobTraceMerge.PartTrace(node, 1, offsetNs, records, new int[0], new long[0], false, replyTo),
            Duration.ofSeconds(5), system.scheduler()).toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    private static byte[] batchOf(final StageRing ring)
    {
        final UnsafeBuffer batch = new UnsafeBuffer(new byte[JobTraceMerge.ENTRY_LENGTH]);
        ring.drain(new StageRecordHandler()
        {
            public void onRecord(final StageRecord record)
            {
                batch.putByte(0, JobTraceMerge.STAGE_RECORD);
                record.copyTo(batch, 1);
            }

            public void onTransfer(final TransferRecord record)
            {
                throw new AssertionError("no transfer records here");
            }
        }, 1);
        return batch.byteArray();
    }


}
