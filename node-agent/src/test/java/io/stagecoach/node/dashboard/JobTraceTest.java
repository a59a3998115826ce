package io.stagecoach.node.dashboard;

import java.io.IOException;
import java.io.StringWriter;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.stagecoach.pipeline.trace.ChromeTraceExport;
import io.stagecoach.pipeline.trace.Stage;
import io.stagecoach.pipeline.trace.StageRecord;
import io.stagecoach.pipeline.trace.StageRing;
import io.stagecoach.pipeline.trace.TracedPath;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class JobTraceTest
{
    private final StageRing ring = new StageRing(0, StageRing.MAX_CAPACITY_BYTES >> 6);

    @Test
    void shouldSampleBarsBeyondTheBudgetAndCountEveryRecordInTheStageFigures()
    {
        final JobTrace trace = new JobTrace("j1", "bw", 2, new DashboardContext().maxBarsPerSecond(1_000)
            .maxBarsPerFrame(100_000));
        final long startNs = System.nanoTime();
        for (int chunk = 0; chunk < 100_000; chunk++)
        {
            ring.record(1, chunk, Stage.WIRE, startNs + chunk * 1_000L, startNs + chunk * 1_000L + 900, 4096, 0);
            if (chunk % 10_000 == 9_999)
            {
                TraceFrames.drain(ring, trace);
            }
        }
        final long periods = (System.nanoTime() - startNs) / 200_000_000L + 1;
        final String frame = trace.frame(0, System.nanoTime());
        final long records = TraceFrames.number(frame, "records");
        final long kept = TraceFrames.number(frame, "barsKept");
        final long sampledOut = TraceFrames.number(frame, "sampledOut");
        assertEquals(100_000, records, frame);
        assertEquals(records, kept + sampledOut, "every record drawn or counted as sampled out");
        assertTrue(sampledOut > 0 && kept <= 200 * periods, "kept " + kept + " of a budget of 200 per 200 ms in " +
            periods + " periods");
        assertTrue(frame.contains("\"lanes\":[[0,2]]"), frame);
        assertTrue(frame.contains("{\"stage\":\"WIRE\",\"count\":100000,\"share\":100.0,\"meanUs\":0.900,"), frame);
        final Matcher p99 = Pattern.compile("\"p99Us\":([0-9.]+)").matcher(frame);
        assertTrue(p99.find() && Math.abs(Double.parseDouble(p99.group(1)) - 0.9) < 0.06, frame);
    }

    @Test
    void shouldFollowATransferFromItsPathToItsEndAndRateItsLink()
    {
        final JobTrace trace = new JobTrace("j2", "bw", 2, new DashboardContext());
        final long nowNs = System.nanoTime();
        ring.transferBegun(5, 1, TracedPath.STAGED, false, 4 * 1024 * 1024, 4, nowNs - 3_000_000_000L);
        ring.record(5, 0, Stage.WIRE, nowNs - 2_900_000_000L, nowNs - 2_800_000_000L, 1024 * 1024, 0);
        TraceFrames.drain(ring, trace);
        final String inFlight = trace.frame(0, nowNs);
        assertTrue(inFlight.contains("\"STAGED\":[1,0]"), inFlight);
        assertTrue(inFlight.contains("\"rank\":0,\"peer\":1,\"receiving\":false,\"path\":\"STAGED\",\"bytes\":4194304," +
            "\"chunks\":4,\"doneChunks\":1,\"progress\":25.0"), inFlight);

        ring.transferEnded(5, 1, TracedPath.STAGED, false, 4 * 1024 * 1024, nowNs - 3_000_000_000L,
            nowNs - 1_500_000_000L, false);
        final StageRing receiver = new StageRing(1, StageRing.MIN_CAPACITY_BYTES);
        receiver.transferEnded(9, 0, TracedPath.STAGED, true, 200_000_000L, nowNs - 3_000_000_000L,
            nowNs - 1_500_000_000L, false);
        TraceFrames.drain(ring, trace);
        receiver.drain(trace, 100);
        final String ended = trace.frame(0, nowNs);
        assertTrue(ended.contains("\"STAGED\":[0,2]"), ended);
        assertTrue(ended.contains("{\"from\":0,\"to\":1,\"mbPerS\":100.0,\"avgMbPerS\":0.0,\"bytes\":200000000,\"messages\":1}"),
            "200 MB over the last 2 s: " + ended);
    }

    @Test
    void shouldExportTheNewestRecordsAsAChromeTraceAndCountTheOverwritten() throws IOException
    {
        final JobTrace trace = new JobTrace("j3", "bw", 2, new DashboardContext().exportRecords(10));
        for (int chunk = 0; chunk < 25; chunk++)
        {
            ring.record(1, chunk, Stage.D2H, 1_000L * chunk, 1_000L * chunk + 500, 64, 0);
        }
        TraceFrames.drain(ring, trace);
        final StringWriter out = new StringWriter();
        final ChromeTraceExport.Summary summary = trace.export(out);
        assertEquals(10, summary.events());
        assertTrue(out.toString().contains("\"exportOverwrittenRecords\":\"15\""), out.toString());
        assertTrue(out.toString().contains("\"args\":{\"transfer\":1,\"chunk\":24,\"bytes\":64,\"device\":0}"),
            out.toString());
        assertTrue(trace.frame(0, System.nanoTime()).contains("\"exportKept\":10,\"exportOverwritten\":15"));
    }

    @Test
    void shouldHoldForTheDownloadWhatAJobWroteAndKeepTheNewestOnceItGrewToTheCapacity() throws IOException
    {
        final JobTrace small = new JobTrace("j4", "hello", 2, new DashboardContext());
        ring.record(1, 0, Stage.D2H, 1_000L, 1_500L, 64, 0);
        TraceFrames.drain(ring, small);
        assertEquals(JobTrace.FIRST_EXPORT_RECORDS * (long)StageRecord.LENGTH, small.exportBytesHeld(),
            "a short job holds the first buffer, not the 262,144 records' 12 MiB");

        final int capacity = 10_000;
        final JobTrace grown = new JobTrace("j5", "bw", 2, new DashboardContext().exportRecords(capacity));
        for (int chunk = 0; chunk < 12_500; chunk++)
        {
            ring.record(1, chunk, Stage.D2H, 1_000L * chunk, 1_000L * chunk + 500, 64, 0);
            if (chunk % 500 == 499)
            {
                TraceFrames.drain(ring, grown);
            }
        }
        assertEquals(capacity * (long)StageRecord.LENGTH, grown.exportBytesHeld());
        final StringWriter out = new StringWriter();
        assertEquals(capacity, grown.export(out).events());
        final String json = out.toString();
        assertTrue(json.contains("\"exportOverwrittenRecords\":\"2500\""), json.substring(0, 400));
        assertTrue(!json.contains("\"chunk\":2499,") && json.contains("\"chunk\":2500,") &&
            json.contains("\"chunk\":8192,") && json.contains("\"chunk\":12499,"),
            "the newest 10,000 records, across the buffer's growth and its wrap");
    }
}
