package io.stagecoach.examples.lbm;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.stagecoach.node.launch.LaunchContext;
import io.stagecoach.node.launch.Launcher;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The example as {@code stagecoach run} starts it, on real rank processes with emulated devices: one lattice of
 * 8 x 8 x 8 cells run on 1 rank, on 2 ranks split along z and on 4 ranks split along x and y, every variant in each
 * run. Every variant of every run must end with the same checksum of every population's bits (the same computation,
 * only the messages differ), with mass and phase conserved to round-off and the same totals whatever the split.
 */
@Tag("system")
@Timeout(300)
class LbmSystemTest
{
    private static final Pattern ROW = Pattern.compile("^(Default|Contig|Datatype|Overlap)\\s+(\\S+)\\s+(\\S+)\\s+" +
        "(\\S+)\\s+(\\S+)\\s+(\\S+)\\s+(\\S+)\\s+(\\S+)\\s+(0x[0-9a-f]{16})$", Pattern.MULTILINE);
    private static final List<String> ARGUMENTS = List.of("--global", "8x8x8", "--steps", "4", "--warm-up", "1",
        "--variant", "all");

    @Test
    void shouldComputeTheSameBitsOnOneTwoAndFourRanksWithEveryVariant()
    {
        final Map<String, List<String[]>> runs = new LinkedHashMap<>();
        runs.put("1 rank", run(1, List.of()));
        runs.put("2 ranks 1x1x2", run(2, List.of("--dims", "1x1x2")));
        runs.put("4 ranks 2x2x1", run(4, List.of()));

        final String checksum = runs.get("1 rank").get(0)[9];
        final double massDrift = Double.parseDouble(runs.get("1 rank").get(0)[6]);
        for (final Map.Entry<String, List<String[]>> run : runs.entrySet())
        {
            assertEquals(4, run.getValue().size(), run.getKey() + ": a row per variant");
            for (final String[] row : run.getValue())
            {
                final String name = run.getKey() + ", " + row[1];
                assertEquals(checksum, row[9], name + ": checksum of every population against 1 rank, Default");
                assertEquals(massDrift, Double.parseDouble(row[6]), 1e-9, name + ": mass drift against 1 rank");
                assertTrue(Math.abs(Double.parseDouble(row[6])) < 1e-6, name + ": mass drift " + row[6]);
                assertTrue(Math.abs(Double.parseDouble(row[7])) < 1e-6, name + ": phase drift per cell " + row[7]);
                assertTrue(Double.parseDouble(row[2]) > 0, name + ": MLUPS " + row[2]);
                final double communication = Double.parseDouble(row[4]);
                assertTrue(communication > 0 && communication < 100, name + ": comm % " + row[4]);
            }
        }
    }

    private static List<String[]> run(final int ranks, final List<String> extra)
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final List<String> arguments = new ArrayList<>(ARGUMENTS);
        arguments.addAll(extra);
        final LaunchContext context = new LaunchContext()
            .size(ranks)
            .oversubscribe(true)
            .program("lbm")
            .programArguments(arguments)
            .environment("STAGECOACH_DEVICE", "emulated")
            .environment("STAGECOACH_DEVICE_EMULATED_DEVICES", "1")
            .environment("STAGECOACH_DEVICE_EMULATED_MEMORYBYTES", Long.toString(64L << 20))
            .jvmOptions(List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"))
            .output(new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));

        final int status = Launcher.run(context);

        final String stdout = out.toString(StandardCharsets.UTF_8);
        final String stderr = err.toString(StandardCharsets.UTF_8);
        assertEquals(0, status, () -> ranks + " ranks " + extra + ":\n" + stdout + stderr);
        assertTrue(stderr.contains("lbm: overlap timed step 1 of 4"), stderr);
        final List<String[]> rows = new ArrayList<>();
        final Matcher row = ROW.matcher(stdout);
        while (row.find())
        {
            final String[] fields = new String[10];
            for (int g = 1; g <= 9; g++)
            {
                fields[g] = row.group(g);
            }
            rows.add(fields);
        }
        System.out.print(stdout);
        return rows;
    }
}
