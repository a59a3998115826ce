package io.stagecoach.node.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code stagecoach agent} and {@code agent status} where no agent can run or answer: what they say and return.
 */
class AgentCommandTest
{
    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    @Test
    void shouldAskForAConfigurationFile()
    {
        assertEquals(2, execute("agent"));

        assertTrue(err.toString().startsWith("stagecoach: missing --config FILE (or a command: status)"),
            err::toString);
    }

    @Test
    void shouldNameTheRefusedKeyOfTheConfigurationFile(@TempDir final Path folder) throws Exception
    {
        final Path config = Files.writeString(folder.resolve("agent.conf"), "stagecoach.agent {\n" +
            "  node-name = a, bind { host = \"127.0.0.1\", port = 0 }, seeds = [\"127.0.0.1:1\"]\n" +
            "  state-dir = \"" + folder + "\"\n}\n");

        assertEquals(1, execute("agent", "--config", config.toString()));

        assertEquals("stagecoach: stagecoach.agent.bind.port = 0 is refused: it must be a whole number in " +
            "[1, 65535]\n", err.toString());
    }

    @Test
    void shouldSayThatNoAgentAnswers(@TempDir final Path folder)
    {
        assertEquals(1, execute("agent", "status", "--state", folder.toString()));

        assertTrue(err.toString().startsWith("stagecoach agent status: no agent answers at " +
            folder.resolve("agent.sock")), err::toString);
    }

    @Test
    void shouldTakeEitherTheStateFolderOrTheConfigurationFile()
    {
        assertEquals(2, execute("agent", "status"));
        assertEquals(2, execute("agent", "status", "--state", "/a", "--config", "/b"));
    }

    private int execute(final String... args)
    {
        final CommandLine line = StagecoachCommand.commandLine();
        line.setOut(new PrintWriter(out, true));
        line.setErr(new PrintWriter(err, true));
        return line.execute(args);
    }
}
