package io.stagecoach.node.launch;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code stagecoach run --trace} with real rank JVMs that record through the stage trace API: the launcher's merge
 * of their files into one Chrome trace, its mode, and how it replaces what is at its path. The trace's lines are
 * checked one by one against the exact shapes of the writer's events.
 */
@Tag("system")
@Timeout(120)
class TraceSystemTest
{
    private static final Pattern METADATA = Pattern.compile("\\{\"name\":\"(process_name|process_sort_index|" +
        "thread_name|thread_sort_index)\",\"ph\":\"M\",\"pid\":(\\d+)(?:,\"tid\":(\\d+))?," +
        "\"args\":\\{\"(?:name|sort_index)\":(\"[^\"\\\\]*\"|\\d+)}},?");
    private static final Pattern SLICE = Pattern.compile("\\{\"name\":\"(PACK|D2H|WIRE|H2D|UNPACK)\"," +
        "\"cat\":\"stage\",\"ph\":\"X\",\"pid\":(\\d+),\"tid\":(\\d+),\"ts\":\\d+\\.\\d{3},\"dur\":9\\.000," +
        "\"args\":\\{\"transfer\":1,\"chunk\":(\\d+),\"bytes\":262144,\"device\":0}},?");
    private static final String FIRST_LINE = "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[";
    private static final Pattern LAST_LINE = Pattern.compile("],\"otherData\":\\{\"job\":\"[^\"]+\"," +
        "\"program\":\"io.stagecoach.node.launch.TracingRank\",\"size\":\"2\",\"clock\":\"CLOCK_MONOTONIC\"," +
        "\"originNs\":\"\\d+\",\"originEpochNs\":\"\\d+\",\"droppedRecords\":\"0\",\"invalidRecords\":\"0\"}}");

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    @TempDir
    Path folder;

    @Test
    void shouldMergeTheRanksStageRecordsIntoOneChromeTraceWithMode0600() throws IOException
    {
        final Path file = folder.resolve("trace.json");

        final int status = Launcher.run(context(file, "4"));

        assertEquals(0, status, () -> text(out) + text(err));
        assertTrue(text(err).contains("stagecoach: wrote 24 stage events of 2 ranks to " + file + "\n"), text(err));
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
        final Map<String, List<String>> tracks = checkLines(Files.readAllLines(file));
        assertEquals(Map.of(
            "rank 0", List.of("PACK 0 1 2 3", "D2H 0 1 2 3", "WIRE 0 1 2 3", "H2D", "UNPACK", "GET"),
            "rank 1", List.of("PACK", "D2H", "WIRE 0 1 2 3", "H2D 0 1 2 3", "UNPACK 0 1 2 3", "GET")), tracks);
        final Matcher traceDirectory = Pattern.compile("TRACE DIR (\\S+)/trace\n").matcher(text(out));
        assertTrue(traceDirectory.find(), text(out));
        assertFalse(Files.exists(Path.of(traceDirectory.group(1)), LinkOption.NOFOLLOW_LINKS),
            "the job's folder, trace folder included, is gone");
    }

    @Test
    void shouldReplaceALinkAtTheTraceFileWithoutFollowingItAndLeaveNothingElse() throws IOException
    {
        final Path target = Files.writeString(folder.resolve("target"), "keep me");
        final Path file = Files.createSymbolicLink(folder.resolve("trace.json"), target);

        final int status = Launcher.run(context(file, "1"));

        assertEquals(0, status, () -> text(out) + text(err));
        assertEquals("keep me", Files.readString(target));
        assertTrue(Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS), "the link is replaced by the trace");
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
        try (Stream<Path> entries = Files.list(folder))
        {
            assertEquals(List.of("target", "trace.json"), entries.map(path -> path.getFileName().toString())
                .sorted().toList(), "no temporary file is left");
        }
    }

    @Test
    void shouldWriteTheTraceOfAJobWhoseRankFailedAndKeepItsStatus() throws IOException
    {
        final Path file = Files.writeString(folder.resolve("trace.json"), "an older trace");

        final int status = Launcher.run(context(file, "2", "3"));

        assertEquals(3, status, () -> text(out) + text(err));
        assertTrue(text(err).contains("stagecoach: wrote 12 stage events of 2 ranks to " + file), text(err));
        checkLines(Files.readAllLines(file));
    }

    @Test
    void shouldGiveRanksNoTraceFolderWithoutTrace()
    {
        final int status = Launcher.run(context(null, "1"));

        assertEquals(0, status, () -> text(out) + text(err));
        assertEquals(2, text(out).split("NO TRACE\n", -1).length - 1, text(out));
        assertFalse(text(err).contains("stage events"), text(err));
    }

    @Test
    void shouldRefuseATraceFileInAFolderThatDoesNotExistBeforeStartingAnything()
    {
        final Path file = folder.resolve("missing").resolve("trace.json");

        final String message = assertThrows(LaunchException.class, () -> Launcher.run(context(file, "1")))
            .getMessage();

        assertEquals("--trace " + file + ": its folder " + file.getParent() + " is not a directory", message);
        assertEquals("", text(out));
    }

    /**
     * @return for each rank's name, its tracks in order, each as its name and the chunks of its events.
     */
    private static Map<String, List<String>> checkLines(final List<String> lines)
    {
        assertEquals(FIRST_LINE, lines.get(0));
        assertTrue(LAST_LINE.matcher(lines.get(lines.size() - 1)).matches(), lines.get(lines.size() - 1));
        final Map<String, String> names = new HashMap<>();
        final Map<String, StringBuilder> chunks = new HashMap<>();
        for (final String line : lines.subList(1, lines.size() - 1))
        {
            final Matcher metadata = METADATA.matcher(line);
            final Matcher slice = SLICE.matcher(line);
            if (metadata.matches())
            {
                names.put(metadata.group(1) + " " + metadata.group(2) + " " + metadata.group(3),
                    metadata.group(4).replace("\"", ""));
            }
            else
            {
                assertTrue(slice.matches(), line);
                chunks.computeIfAbsent(slice.group(2) + " " + slice.group(3), track -> new StringBuilder())
                    .append(' ').append(slice.group(4));
                assertEquals(slice.group(1), names.get("thread_name " + slice.group(2) + " " + slice.group(3)));
            }
        }
        return tracks(names, chunks);
    }

    private static Map<String, List<String>> tracks(final Map<String, String> names, final Map<String, StringBuilder> chunks)
    {
        final Map<String, List<String>> tracks = new HashMap<>();
        for (int pid = 1; names.containsKey("process_name " + pid + " null"); pid++)
        {
            final List<String> ofRank = new ArrayList<>();
            for (int tid = 1; names.containsKey("thread_name " + pid + " " + tid); tid++)
            {
                assertEquals(Integer.toString((tid - 1) * 4096), names.get("thread_sort_index " + pid + " " + tid));
                ofRank.add(names.get("thread_name " + pid + " " + tid) +
                    chunks.getOrDefault(pid + " " + tid, new StringBuilder()));
            }
            assertEquals(Integer.toString(pid - 1), names.get("process_sort_index " + pid + " null"));
            tracks.put(names.get("process_name " + pid + " null"), ofRank);
        }
        return tracks;
    }

    private LaunchContext context(final Path traceFile, final String... arguments)
    {
        return new LaunchContext()
            .size(2)
            .oversubscribe(true)
            .program(TracingRank.class.getName())
            .programArguments(List.of(arguments))
            .traceFile(traceFile)
            .jvmOptions(
                List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Dagrona.disable.bounds.checks=false"))
            .output(
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    private static String text(final ByteArrayOutputStream bytes)
    {
        return bytes.toString(StandardCharsets.UTF_8);
    }
}
