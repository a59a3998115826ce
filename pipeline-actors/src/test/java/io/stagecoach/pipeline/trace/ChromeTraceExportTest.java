package io.stagecoach.pipeline.trace;

import java.io.IOException;
import java.io.StringWriter;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static io.stagecoach.pipeline.trace.TraceFiles.record;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ChromeTraceExportTest
{
    private static final long BASE_NS = 5_000_000_000L;

    @TempDir
    Path folder;

    @Test
    void shouldWriteOneProcessPerRankAndOneTrackPerStageInStageOrder() throws IOException
    {
        final Map<String, Object> trace = export(List.of(sender(), receiver()), Map.of("job", "j1"));

        assertEquals("ns", trace.get("displayTimeUnit"));
        final List<Map<String, Object>> events = events(trace);
        assertEquals("rank 0", metadata(events, "process_name", 1, null).get("name"));
        assertEquals("rank 1", metadata(events, "process_name", 2, null).get("name"));
        assertEquals(new BigDecimal(1), metadata(events, "process_sort_index", 2, null).get("sort_index"));
        for (final int pid : new int[]{ 1, 2 })
        {
            int lastSortIndex = -1;
            for (final Stage stage : Stage.values())
            {
                final int tid = stage.ordinal() + 1;
                assertEquals(stage.name(), metadata(events, "thread_name", pid, tid).get("name"));
                final int sortIndex =
                    ((BigDecimal)metadata(events, "thread_sort_index", pid, tid).get("sort_index")).intValue();
                assertTrue(sortIndex > lastSortIndex, "tracks in stage order");
                lastSortIndex = sortIndex;
            }
        }
    }

    @Test
    void shouldWriteACompleteEventPerRecordInMicrosecondsFromTheEarliestStart() throws IOException
    {
        final Map<String, Object> trace = export(List.of(sender(), receiver()), Map.of());

        final List<Map<String, Object>> slices = slices(events(trace));
        assertEquals(6, slices.size());
        final Map<String, Object> d2h = slices.stream()
            .filter(event -> "D2H".equals(event.get("name"))).findFirst().orElseThrow();
        assertEquals("X", d2h.get("ph"));
        assertEquals("stage", d2h.get("cat"));
        assertEquals(new BigDecimal("1.234"), d2h.get("ts"));
        assertEquals(new BigDecimal("2.000"), d2h.get("dur"));
        assertEquals(Map.of("transfer", new BigDecimal(7), "chunk", new BigDecimal(0),
            "bytes", new BigDecimal(262144), "device", new BigDecimal(0)), d2h.get("args"));
        final Map<?, ?> otherData = (Map<?, ?>)trace.get("otherData");
        assertEquals(Long.toString(BASE_NS), otherData.get("originNs"));
        assertEquals("CLOCK_MONOTONIC", otherData.get("clock"));
        assertEquals("0", otherData.get("droppedRecords"));
    }

    @Test
    void shouldGiveOverlappingChunksOfAStageFurtherTracksSoThatEveryTrackNests() throws IOException
    {
        final Path file = TraceFiles.write(folder, 0, 0,
            record(1, 0, Stage.WIRE, BASE_NS, BASE_NS + 100, 1),
            record(1, 1, Stage.WIRE, BASE_NS + 50, BASE_NS + 150, 1),
            record(1, 2, Stage.WIRE, BASE_NS + 60, BASE_NS + 70, 1),
            record(1, 3, Stage.WIRE, BASE_NS + 100, BASE_NS + 200, 1));

        final List<Map<String, Object>> events = events(export(List.of(file), Map.of()));

        assertEquals("WIRE 2", metadata(events, "thread_name", 1, 3 + Stage.COUNT).get("name"));
        assertEquals("WIRE 3", metadata(events, "thread_name", 1, 3 + 2 * Stage.COUNT).get("name"));
        final Map<Object, List<Integer>> chunksByTrack = new HashMap<>();
        for (final Map<String, Object> slice : slices(events))
        {
            chunksByTrack.computeIfAbsent(slice.get("tid"), tid -> new ArrayList<>())
                .add(((BigDecimal)((Map<?, ?>)slice.get("args")).get("chunk")).intValue());
        }
        assertEquals(Map.of(new BigDecimal(3), List.of(0, 3), new BigDecimal(3 + Stage.COUNT), List.of(1),
            new BigDecimal(3 + 2 * Stage.COUNT), List.of(2)), chunksByTrack);
        assertNoOverlapWithinATrack(slices(events));
    }

    @Test
    void shouldLeaveOutAndCountRecordsWithoutAStageOrEndingBeforeTheyStart() throws IOException
    {
        final long[] noStage = record(1, 0, Stage.PACK, BASE_NS, BASE_NS + 1, 1);
        noStage[2] = 9;
        final Path file = TraceFiles.write(folder, 3, 4, noStage,
            record(1, 1, Stage.PACK, BASE_NS + 10, BASE_NS + 5, 1),
            record(1, 2, Stage.PACK, BASE_NS + 20, BASE_NS + 30, 1));
        final StringWriter out = new StringWriter();

        final ChromeTraceExport.Summary summary = ChromeTraceExport.write(List.of(file), out, Map.of());

        assertEquals(new ChromeTraceExport.Summary(1, 1, 4, 2, 0, List.of()), summary);
        final List<Map<String, Object>> events = events(asMap(MiniJson.parse(out.toString())));
        assertEquals(new BigDecimal("0.000"), slices(events).get(0).get("ts"));
        assertEquals("dropped 4 records", metadata(events, "process_labels", 4, null).get("labels"));
    }

    @Test
    void shouldLeaveOutAndNameAFileThatIsNoTraceFile() throws IOException
    {
        final Path empty = Files.createFile(folder.resolve("rank-1.stagetrace"));
        final StringWriter out = new StringWriter();

        final ChromeTraceExport.Summary summary = ChromeTraceExport.write(List.of(sender(), empty), out, Map.of());

        assertEquals(1, summary.ranks());
        assertEquals(3, summary.events());
        assertEquals(List.of(empty + " is not a stage trace file of version 1: it does not start with STAGETRC"),
            summary.unreadable());
        assertEquals(3, slices(events(asMap(MiniJson.parse(out.toString())))).size());
    }

    @Test
    void shouldEscapeStringsOfOtherData() throws IOException
    {
        final Map<String, String> data = new LinkedHashMap<>();
        data.put("program", "a \"quoted\" \\ name\nwith\ttabs \u0001 and é");

        final Map<String, Object> trace = export(List.of(sender()), data);

        assertEquals(data.get("program"), ((Map<?, ?>)trace.get("otherData")).get("program"));
    }

    @Test
    void shouldWriteAnEmptyTraceForNoFiles() throws IOException
    {
        final Map<String, Object> trace = export(List.of(), Map.of());

        assertEquals(List.of(), trace.get("traceEvents"));
        assertEquals("0", ((Map<?, ?>)trace.get("otherData")).get("originNs"));
    }

    @Test
    void shouldRefuseTwoFilesOfOneRank() throws IOException
    {
        final Path first = TraceFiles.write(Files.createDirectory(folder.resolve("a")), 1, 0);
        final Path second = TraceFiles.write(Files.createDirectory(folder.resolve("b")), 1, 0);

        final String message = assertThrows(IOException.class,
            () -> ChromeTraceExport.write(List.of(first, second), new StringWriter(), Map.of())).getMessage();

        assertEquals("both " + first + " and " + second + " hold rank 1", message);
    }

    @Test
    void shouldFormatMicrosecondsToTheNanosecond()
    {
        assertEquals("0.000 0.001 0.999 1.000 1234.567 -0.050", micros(0) + " " + micros(1) + " " + micros(999) +
            " " + micros(1000) + " " + micros(1_234_567) + " " + micros(-50));
    }

    private Path sender() throws IOException
    {
        return TraceFiles.write(folder, 0, 0,
            record(7, 0, Stage.PACK, BASE_NS, BASE_NS + 1_234, 262_144),
            record(7, 0, Stage.D2H, BASE_NS + 1_234, BASE_NS + 3_234, 262_144),
            record(7, 0, Stage.WIRE, BASE_NS + 3_234, BASE_NS + 9_000, 262_144));
    }

    private Path receiver() throws IOException
    {
        return TraceFiles.write(folder, 1, 0,
            record(7, 0, Stage.WIRE, BASE_NS + 3_300, BASE_NS + 9_100, 262_144),
            record(7, 0, Stage.H2D, BASE_NS + 9_100, BASE_NS + 11_000, 262_144),
            record(7, 0, Stage.UNPACK, BASE_NS + 11_000, BASE_NS + 12_000, 262_144));
    }

    private static Map<String, Object> export(final List<Path> files, final Map<String, String> data)
        throws IOException
    {
        final StringWriter out = new StringWriter();
        ChromeTraceExport.write(files, out, data);
        return asMap(MiniJson.parse(out.toString()));
    }

    private static String micros(final long nanos)
    {
        final StringBuilder text = new StringBuilder();
        ChromeTraceWriter.appendMicros(text, nanos);
        return text.toString();
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> asMap(final Object value)
    {
        return (Map<String, Object>)value;
    }

    private static List<Map<String, Object>> events(final Map<String, Object> trace)
    {
        final List<Map<String, Object>> events = new ArrayList<>();
        for (final Object event : (List<?>)trace.get("traceEvents"))
        {
            events.add(asMap(event));
        }
        return events;
    }

    private static List<Map<String, Object>> slices(final List<Map<String, Object>> events)
    {
        return events.stream().filter(event -> "X".equals(event.get("ph"))).toList();
    }

    private static Map<?, ?> metadata(
        final List<Map<String, Object>> events, final String name, final int pid, final Integer tid)
    {
        final List<Map<String, Object>> found = events.stream()
            .filter(event -> "M".equals(event.get("ph")) && name.equals(event.get("name")) &&
                new BigDecimal(pid).equals(event.get("pid")) &&
                (null == tid ? !event.containsKey("tid") : new BigDecimal(tid).equals(event.get("tid"))))
            .toList();
        assertEquals(1, found.size(), () -> name + " of pid " + pid + " tid " + tid + " in " + events);
        return (Map<?, ?>)found.get(0).get("args");
    }

    private static void assertNoOverlapWithinATrack(final List<Map<String, Object>> slices)
    {
        final Map<Object, List<Map<String, Object>>> byTrack = new HashMap<>();
        slices.forEach(slice -> byTrack.computeIfAbsent(List.of(slice.get("pid"), slice.get("tid")),
            track -> new ArrayList<>()).add(slice));
        for (final List<Map<String, Object>> track : byTrack.values())
        {
            track.sort(Comparator.comparing(slice -> (BigDecimal)slice.get("ts")));
            for (int i = 1; i < track.size(); i++)
            {
                final BigDecimal previousEnd =
                    ((BigDecimal)track.get(i - 1).get("ts")).add((BigDecimal)track.get(i - 1).get("dur"));
                assertTrue(previousEnd.compareTo((BigDecimal)track.get(i).get("ts")) <= 0, track.toString());
            }
        }
    }
}
