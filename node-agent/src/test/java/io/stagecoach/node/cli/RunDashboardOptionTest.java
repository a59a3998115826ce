package io.stagecoach.node.cli;

import java.io.File;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RunDashboardOptionTest
{
    @Test
    void shouldTakeAPortOnlyWhenTheNextArgumentIsOne()
    {
        assertRun(0, "bw", "run", "-n", "2", "--dashboard", "bw", "D", "D");
        assertRun(8080, "bw", "run", "-n", "2", "--dashboard", "8080", "bw", "D", "D");
        assertRun(8081, "latency", "run", "-n", "2", "--dashboard=8081", "latency");
        assertRun(0, "bw", "run", "--dashboard", "-n", "2", "bw");
        assertRun(null, "bw", "run", "-n", "2", "bw", "--dashboard");
    }

    @Test
    void shouldRefuseAPortAbove65535()
    {
        final CommandLine.ParameterException refused = assertThrows(CommandLine.ParameterException.class,
            () -> StagecoachCommand.commandLine().parseArgs("run", "-n", "2", "--dashboard", "70000", "bw"));
        assertTrue(refused.getMessage().contains("70000"), refused.getMessage());
    }

    @Test
    void shouldRefuseANegativeLinger()
    {
        final CommandLine.ParameterException refused = assertThrows(CommandLine.ParameterException.class,
            () -> StagecoachCommand.commandLine().parseArgs("run", "-n", "2", "--dashboard-linger", "-5", "bw"));
        assertTrue(refused.getMessage().contains("'-5' is not a number of seconds, 0 or more"), refused.getMessage());
    }

    @Test
    void shouldRefuseBarsPerSecondOutsideItsRange()
    {
        assertRefused("--dashboard-bars 4 is outside 5 to 1000000",
            "run", "-n", "1", "--dashboard", "--dashboard-bars", "4", "latency");
        assertRefused("--dashboard-bars goes with --dashboard", "run", "-n", "1", "--dashboard-bars", "500", "latency");
    }

    @Test
    void shouldRefuseTheDashboardForAJobThroughAgents()
    {
        assertRefused("--dashboard serves a job on this node alone, not with -H or --hostfile",
            "run", "-H", "node-a:1", "-n", "1", "--dashboard", "latency");
    }

    /**
     * Runs the command, which must end with status 2 and say so.
     */
    private static void assertRefused(final String message, final String... args)
    {
        final StringWriter err = new StringWriter();
        final CommandLine command = StagecoachCommand.commandLine();
        command.setErr(new PrintWriter(err));
        assertEquals(2, command.execute(args), err::toString);
        assertTrue(err.toString().contains(message), err.toString());
    }

    @Test
    void shouldSayWhatIsMissingWhereTheWebServerIsLeftOut() throws IOException, InterruptedException
    {
        // the class path of a bundle made by bin/build-bundle: no Pekko HTTP, Streams or Cluster
        final String classPath = Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
            .filter(entry -> !Path.of(entry).getFileName().toString().matches(
                "pekko-(http|http-core|parsing|stream|cluster|remote|distributed-data|coordination|pki|protobuf).*"))
            .collect(Collectors.joining(File.pathSeparator));
        final Process command = new ProcessBuilder(List.of(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp", classPath,
            "io.stagecoach.node.cli.StagecoachCommand", "run", "-n", "1", "--dashboard", "latency"))
            .redirectErrorStream(true).start();
        final String output = new String(command.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(command.waitFor(60, TimeUnit.SECONDS), output);
        assertEquals(2, command.exitValue(), output);
        assertTrue(output.contains("--dashboard needs Pekko HTTP, which is not on the class path"), output);
    }

    private static void assertRun(final Integer port, final String program, final String... args)
    {
        final CommandLine.ParseResult run = StagecoachCommand.commandLine().parseArgs(args).subcommand();
        final Integer parsed = run.commandSpec().findOption("--dashboard").getValue();
        if (null == port)
        {
            assertNull(parsed, String.join(" ", args));
        }
        else
        {
            assertEquals(port, parsed, String.join(" ", args));
        }
        assertEquals(program, run.matchedPositionalValue(0, null), String.join(" ", args));
    }
}
