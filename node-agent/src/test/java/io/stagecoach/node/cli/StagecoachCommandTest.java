package io.stagecoach.node.cli;

import java.io.PrintWriter;
import java.io.StringWriter;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class StagecoachCommandTest
{
    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    @Test
    void shouldDescribeAVectorOfFloats()
    {
        assertEquals(0, execute("datatype", "describe", "vector(4, 2, 8, float)"), err::toString);

        final String text = out.toString();
        assertTrue(text.contains("size         32 bytes packed per instance\n"), text);
        assertTrue(text.contains("extent       104 bytes   lb 0, ub 104\n"), text);
        assertTrue(text.contains("elements     8 basic elements per instance\n"), text);
        assertTrue(text.contains("runs         8 x float\n"), text);
        assertTrue(text.contains("VECTOR offset=0 count=4 stride=32 packed=32"), text);
    }

    @Test
    void shouldListAndCapTheSegmentsOfSeveralInstances()
    {
        assertEquals(0, execute("datatype", "describe", "--count", "2", "--segments", "--max-segments", "3",
            "vector(4, 2, 8, float)"), err::toString);

        final String text = out.toString();
        assertTrue(text.contains("buffer       touches bytes [0, 208) of the buffer for 2 instances\n"), text);
        assertTrue(text.contains("count        2 instances: 64 bytes packed, 16 elements\n"), text);
        assertTrue(text.contains("runs         16 x float\n"), text);
        assertTrue(text.matches("(?s).*\\n\\s+0\\s+0\\s+0\\s+8\\n\\s+1\\s+32\\s+8\\s+8\\n\\s+2\\s+64\\s+16\\s+8\\n" +
            "  \\.\\.\\. 4 more; 7 segments in all \\(--max-segments N shows more\\)\\n.*"), text);
    }

    @Test
    void shouldCapTheRunsOfALongSignature()
    {
        assertEquals(0, execute("datatype", "describe", "--count", "100", "struct([1,1],[0,8],[int,double])"),
            err::toString);

        assertTrue(out.toString().contains("1 x int, 1 x double, ... (first 16 runs, 16 of 200 elements)"),
            out::toString);
    }

    @Test
    void shouldPointAtAParseError()
    {
        assertEquals(2, execute("datatype", "describe", "vector(4, 2 x, 8, float)"));

        assertEquals("stagecoach datatype describe: at column 13: expected ',' before the stride of vector but found " +
            "'x, 8, float)'\n  vector(4, 2 x, 8, float)\n              ^\n", err.toString());
    }

    @Test
    void shouldRefuseACountWhosePackedBytesOverflowBeforePrintingAnything()
    {
        assertEquals(2, execute("datatype", "describe", "--count", "9223372036854775807", "vector(4, 2, 8, float)"));

        assertEquals("", out.toString());
        assertEquals("stagecoach datatype describe: count 9223372036854775807 of vector(4, 2, 8, FLOAT) (32 packed " +
            "bytes each) overflows the long limit 9223372036854775807 of packed bytes: the count must be <= " +
            "288230376151711743\n", err.toString());
    }

    @Test
    void shouldRefuseACountWhoseSpanOverflowsBeforePrintingAnything()
    {
        assertEquals(2, execute("datatype", "describe", "--count", "3", "resized(int, 0, 4611686018427387904)"));

        assertEquals("", out.toString());
        assertTrue(err.toString().startsWith("stagecoach datatype describe: data span of 3 instances overflows the " +
            "long limit 9223372036854775807: 2 x 4611686018427387904"), err::toString);
    }

    @Test
    void shouldRefuseNestingBeyondTheLimitNamingTheDepthAndTheLimit()
    {
        final String expression = nested("contiguous(1, ", "int", ")", 2000);

        assertEquals(2, execute("datatype", "describe", expression));

        assertEquals("", out.toString());
        final String[] lines = err.toString().split("\n");
        assertEquals("stagecoach datatype describe: at column " + (64 * 14 + 1) + ": the expression nests " +
            "constructors 2000 deep, more than the limit of 64", lines[0]);
        assertEquals(3, lines.length, err::toString);
        assertTrue(lines[1].length() < 120 && lines[1].contains("contiguous(1, "), lines[1]);
        assertEquals('c', lines[1].charAt(lines[2].length() - 1), "the caret points at the 65th constructor");
    }

    @Test
    void shouldCommitAndDescribeTheDeepestAllowedTypeOnASmallStack() throws InterruptedException
    {
        final String expression = nested("hvector(2, 1, 5, struct([1, 1], [0, 1], [", "int", ", byte]))",
            TypeExpression.MAX_NESTING / 2);
        assertEquals(TypeExpression.MAX_NESTING, TypeExpression.nestingOf(expression));
        final int[] status = { -1 };
        final Thread thread = new Thread(null, () -> status[0] = execute("datatype", "describe", "--count", "3",
            expression), "small-stack", 256 * 1024);
        thread.start();
        thread.join(60_000);

        assertEquals(0, status[0], () -> "describe on a 256 KiB stack ended with " + status[0] + ": " + err);
        assertTrue(out.toString().contains("nodes=97 depth=65"), out::toString);
    }

    @Test
    void shouldRejectUsageErrorsBriefly()
    {
        assertEquals(2, execute("run", "-n", "2"));
        assertTrue(err.toString().startsWith("stagecoach: Missing required parameter: '<program>'\n"), err::toString);
        assertTrue(err.toString().endsWith("Try 'stagecoach run --help' for more.\n"), err::toString);

        err.getBuffer().setLength(0);
        assertEquals(2, execute("run", "-np", "2", "--timeout", "soon", "x"));
        assertTrue(err.toString().startsWith("stagecoach: Invalid value for option '--timeout': 'soon' is not a " +
            "number of seconds"), err::toString);

        err.getBuffer().setLength(0);
        assertEquals(2, execute("run", "-np", "2", "--timeout", "1e10", "x"));
        assertTrue(err.toString().startsWith("stagecoach: Invalid value for option '--timeout': '1e10' is more " +
            "than 1000000000 seconds (about 31 years), the longest this takes"), err::toString);
    }

    @Test
    void shouldFailWithoutStartingRanksWhenTheProgramIsUnknown()
    {
        assertEquals(1, execute("run", "-np", "2", "--tag-output", "no.such.Program", "--tag-output"));

        assertEquals("stagecoach: no program 'no.such.Program': it is neither a built-in " +
            "(latency, actor-latency, bw, bibw, halo, lbm) nor a class on the class path\n", err.toString());
    }

    @Test
    void shouldRefuseMoreRanksThanCoresWithoutOversubscribeAndStartNothing()
    {
        final int slots = Runtime.getRuntime().availableProcessors();

        assertEquals(1, execute("run", "-n", Integer.toString(slots + 1), "--timeout", "5",
            "io.stagecoach.node.launch.SleepingRank"));

        assertEquals("stagecoach: -n " + (slots + 1) + " asks for more ranks than the " + slots + " slots here (the " +
            "cores this process may run on); add --oversubscribe to run more ranks than cores\n", err.toString());
        assertEquals(0, ProcessHandle.current().children().count(), "processes started");
    }

    @Test
    void shouldBuildOnlyTheNamedSubcommandYetListThemAllInHelp()
    {
        assertEquals(java.util.Set.of("ps"), StagecoachCommand.commandLine(new String[] { "ps", "--json" })
            .getSubcommands().keySet());
        assertEquals(java.util.List.of("run", "ps", "kill", "datatype", "tune", "agent", "help"),
            java.util.List.copyOf(StagecoachCommand.commandLine().getSubcommands().keySet()));

        assertEquals(0, execute("--help"));
        assertTrue(out.toString().contains("  ps  ") && out.toString().contains("  agent  "), out::toString);
        out.getBuffer().setLength(0);
        assertEquals(0, execute("help", "run"));
        assertTrue(out.toString().startsWith("Usage: stagecoach run "), out::toString);
        assertEquals(2, execute("rnu"));
        assertTrue(err.toString().contains("Unmatched argument at index 0: 'rnu'"), err::toString);
    }

    private static String nested(final String open, final String core, final String close, final int levels)
    {
        return open.repeat(levels) + core + close.repeat(levels);
    }

    private int execute(final String... args)
    {
        final CommandLine commandLine = StagecoachCommand.commandLine(args);
        commandLine.setOut(new PrintWriter(out, true));
        commandLine.setErr(new PrintWriter(err, true));
        return commandLine.execute(args);
    }
}
