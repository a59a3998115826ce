package io.stagecoach.node.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;

import io.stagecoach.node.agent.ControlClient;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code stagecoach ps}: the jobs the local agent runs, one JSON object a line.
 */
@Command(
    name = "ps",
    mixinStandardHelpOptions = true,
    description = {
        "List the jobs of the local agent, one JSON object a line: those submitted on this node (job, size, " +
            "program, nodes with their rank counts, start time) and those with ranks here.",
        "" },
    sortOptions = false)
final class JobsCommand implements Callable<Integer>
{
    @Spec
    private CommandSpec spec;

    @Mixin
    private AgentLocation agent;

    public Integer call()
    {
        return ask(spec, agent, "jobs");
    }

    static int ask(final CommandSpec spec, final AgentLocation agent, final String request)
    {
        final PrintWriter out = spec.commandLine().getOut();
        final PrintWriter err = spec.commandLine().getErr();
        final Path socket;
        try
        {
            socket = agent.socket();
        }
        catch (final RuntimeException ex)
        {
            err.println("stagecoach: cannot find the local agent: " + ex.getMessage());
            return 1;
        }
        final int[] status = { 0 };
        try
        {
            ControlClient.stream(socket, request, line ->
            {
                if (line.startsWith("error: "))
                {
                    err.println("stagecoach: " + line.substring("error: ".length()));
                    status[0] = 1;
                }
                else
                {
                    out.println(line);
                }
            });
        }
        catch (final IOException ex)
        {
            err.println("stagecoach: no agent answers at " + socket + " (" + ex.getMessage() + ")");
            status[0] = 1;
        }
        out.flush();
        err.flush();
        return status[0];
    }
}
