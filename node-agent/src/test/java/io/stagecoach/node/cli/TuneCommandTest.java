package io.stagecoach.node.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.Reader;
import java.io.StringWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code stagecoach tune} on the emulated device: into a fresh cache folder it measures the costs, caches them in one
 * private file and prints them with a row per size (8 B to 64 MiB), each path's predicted time and the model's
 * choices, one-sided or eager or staged on one node, eager up to the eager threshold and staged above it between
 * nodes; a second run reads the file and prints the same constants, {@code --remeasure} measures again, a file written
 * before the paths' costs were measured is measured again, {@code --json} prints the same as one object, and a
 * setting that overrides the model is named.
 */
class TuneCommandTest
{
    private static final List<String> SIZES =
        List.of("8 B", "1 KiB", "16 KiB", "256 KiB", "1 MiB", "4 MiB", "16 MiB", "64 MiB");
    private static final Pattern ROW = Pattern.compile(
        "(?m)^ *(\\d+ (?:B|KiB|MiB))((?: +(?:-|\\d+\\.\\d)){6})  (one-sided|eager|staged, \\d+ [KM]iB) +" +
            "(eager|staged, \\d+ [KM]iB)$");

    @TempDir
    Path folder;

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    @Test
    void shouldMeasureIntoAFreshCacheFolderAndPrintTheConstantsAndAChoicePerSize() throws IOException
    {
        assertEquals(0, tune(), err::toString);

        final String text = out.toString();
        assertTrue(text.startsWith("device       emulated 0 ("), text);
        assertTrue(text.contains("costs        measured now in "), text);
        final Path file = cacheFile(text);
        assertEquals(folder, file.getParent());
        assertEquals(11, load(file).size(), "every cost cached");
        assertTrue(text.contains("settings     eager threshold 16 KiB, slot 1 MiB, chunk chosen by the model, device " +
            "path auto, IPC threshold chosen by the model\n"), text);
        for (final String constant : List.of("stage pack into pinned memory", "stage unpack out of pinned memory",
            "device-to-device copy + event", "pack kernel, device to device", "inline pack into pinned, 8 B",
            "inline unpack out of pinned, 8 B", "message, one node / two nodes"))
        {
            assertTrue(text.contains("  " + constant + " "), constant + " in " + text);
        }
        final Matcher row = ROW.matcher(text);
        for (final String size : SIZES)
        {
            assertTrue(row.find(), "a row for " + size + " in " + text);
            assertEquals(size, row.group(1));
            final long bytes = TuneReport.SIZES[SIZES.indexOf(size)];
            final boolean eager = bytes <= 16 * 1024;
            assertEquals(eager, !row.group(2).trim().startsWith("-"), "eager predicted up to the threshold: " + size);
            assertTrue(eager || !row.group(3).equals("eager"), "no eager above the threshold on one node: " + size);
            assertEquals(eager ? "eager" : "staged", row.group(4).replaceAll(",.*", ""), "two nodes, " + size);
        }
        assertTrue(!text.contains("settings override the model"), text);
    }

    @Test
    void shouldReadTheCacheOnTheSecondRunAndMeasureAgainWhenAsked() throws IOException
    {
        assertEquals(0, tune(), err::toString);
        final String first = out.toString();
        final Path file = cacheFile(first);
        final long modified = Files.getLastModifiedTime(file).toMillis();
        out.getBuffer().setLength(0);

        assertEquals(0, tune(), err::toString);
        final String second = out.toString();
        assertTrue(second.contains("costs        read from " + file + "\n"), second);
        assertEquals(constants(first), constants(second), "the cached constants");
        assertEquals(modified, Files.getLastModifiedTime(file).toMillis(), "the file is not written again");
        out.getBuffer().setLength(0);

        assertEquals(0, tune("--remeasure"), err::toString);
        assertTrue(out.toString().contains("costs        measured now in "), out::toString);
    }

    @Test
    void shouldMeasureAgainWhereTheCacheLacksThePathsCosts() throws IOException
    {
        assertEquals(0, tune(), err::toString);
        final Path file = cacheFile(out.toString());
        final Properties values = load(file);
        final Properties old = new Properties();
        for (final String key : List.of("pack.fixed.ns", "pack.bytes.per.ns", "unpack.fixed.ns", "unpack.bytes.per.ns"))
        {
            old.setProperty(key, values.getProperty(key));
        }
        try (Writer writer = Files.newBufferedWriter(file, StandardCharsets.UTF_8))
        {
            old.store(writer, "stage costs of one device, measured by StageCostProbe");
        }
        out.getBuffer().setLength(0);

        assertEquals(0, tune(), err::toString);

        assertTrue(out.toString().contains("costs        measured now in "), out::toString);
        assertEquals(11, load(file).size(), "rewritten with every cost");
    }

    @Test
    void shouldPrintTheSameAsOneJsonObject() throws IOException
    {
        assertEquals(0, tune(), err::toString);
        final String text = out.toString();
        out.getBuffer().setLength(0);

        assertEquals(0, tune("--json"), err::toString);

        final String json = out.toString().trim();
        assertTrue(json.startsWith("{\"device\":{\"kind\":\"emulated\",\"ordinal\":0,"), json);
        assertTrue(json.contains("\"cache\":{\"file\":\"" + cacheFile(text) + "\",\"measured\":false,\"measureMs\":0}"),
            json);
        assertTrue(json.contains("\"settings\":{\"eagerThresholdBytes\":16384,\"slotBytes\":1048576,\"chunkBytes\":0," +
            "\"devicePath\":\"auto\",\"ipcThresholdBytes\":-2}"), json);
        assertEquals(SIZES.size(), count(json, "{\"bytes\":"), json);
        assertEquals(SIZES.size() * 2, count(json, "{\"path\":"), json);
        assertTrue(json.contains("\"eagerOneNodeNs\":null"), "no eager prediction above the threshold: " + json);
        final Matcher row = ROW.matcher(text);
        for (final long bytes : TuneReport.SIZES)
        {
            assertTrue(row.find());
            final String entry = json.substring(json.indexOf("{\"bytes\":" + bytes + ","));
            final String oneNode = entry.substring(entry.indexOf("\"oneNode\":{\"path\":\"") + 19);
            assertEquals(row.group(3).replaceAll(",.*", ""), oneNode.substring(0, oneNode.indexOf('"')),
                "the same choice as the text's for " + bytes + " bytes");
        }
        assertEquals(count(json, "{"), count(json, "}"), "balanced: " + json);
    }

    @Test
    void shouldNameASettingThatOverridesTheModel()
    {
        System.setProperty("stagecoach.device.path", "staged");
        try
        {
            assertEquals(0, tune("--eager-threshold", "4096"), err::toString);
        }
        finally
        {
            System.clearProperty("stagecoach.device.path");
        }

        final String text = out.toString();
        assertTrue(text.contains("settings     eager threshold 4 KiB, slot 1 MiB, chunk chosen by the model, device " +
            "path staged, IPC threshold chosen by the model\n"), text);
        assertTrue(text.contains("settings override the model: stagecoach.device.path=staged: no device message goes " +
            "one-sided.\n"), text);
    }

    private int tune(final String... options)
    {
        final String[] args = new String[options.length + 5];
        args[0] = "tune";
        args[1] = "--device";
        args[2] = "emulated";
        args[3] = "--cache-dir";
        args[4] = folder.toString();
        System.arraycopy(options, 0, args, 5, options.length);
        final CommandLine commandLine = StagecoachCommand.commandLine();
        commandLine.setOut(new PrintWriter(out, true));
        commandLine.setErr(new PrintWriter(err, true));
        return commandLine.execute(args);
    }

    private static Path cacheFile(final String text)
    {
        final Matcher matcher = Pattern.compile("(?m)^costs +(?:measured now in \\d+ ms, cached in|read from) (.*)$")
            .matcher(text);
        assertTrue(matcher.find(), text);
        return Path.of(matcher.group(1));
    }

    private static String constants(final String text)
    {
        return text.substring(text.indexOf("constants"), text.indexOf("predicted"));
    }

    private static Properties load(final Path file) throws IOException
    {
        final Properties values = new Properties();
        try (Reader in = Files.newBufferedReader(file, StandardCharsets.UTF_8))
        {
            values.load(in);
        }
        return values;
    }

    private static int count(final String text, final String part)
    {
        int count = 0;
        for (int at = text.indexOf(part); at >= 0; at = text.indexOf(part, at + 1))
        {
            count++;
        }
        return count;
    }
}
