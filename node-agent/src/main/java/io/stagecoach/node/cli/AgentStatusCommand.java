package io.stagecoach.node.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;

import io.stagecoach.node.agent.AgentSettings;
import io.stagecoach.node.agent.ClusterStatus;
import io.stagecoach.node.agent.ControlClient;
import io.stagecoach.node.agent.StateFolder;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code stagecoach agent status}: asks the local agent, through its control socket, for the cluster's members and
 * prints them as a table or as JSON.
 */
@Command(
    name = "status",
    mixinStandardHelpOptions = true,
    description = {
        "Print the members of the agents' cluster as the local agent sees them: node, address, membership status, " +
            "reachability and GPUs; the agent asked is marked with *.",
        "" },
    sortOptions = false)
final class AgentStatusCommand implements Callable<Integer>
{
    @Spec
    private CommandSpec spec;

    @ArgGroup(exclusive = true, multiplicity = "1")
    private Where where;

    @Option(names = "--json", description = "Print the agent's answer, one JSON object, instead of the table.")
    private boolean json;

    public Integer call() throws IOException
    {
        final Path folder = where.stateFolder != null ? where.stateFolder :
            AgentSettings.load(where.config, () -> 0).stateFolder();
        final Path socket = StateFolder.socketOf(folder);
        final String answer;
        try
        {
            answer = ControlClient.request(socket, "status");
        }
        catch (final IOException ex)
        {
            spec.commandLine().getErr().println("stagecoach agent status: no agent answers at " + socket + " (" +
                ex.getMessage() + ")");
            return 1;
        }
        final PrintWriter out = spec.commandLine().getOut();
        if (answer.startsWith("error:"))
        {
            spec.commandLine().getErr().println("stagecoach agent status: " + answer);
            return 1;
        }
        if (json)
        {
            out.println(answer);
        }
        else
        {
            ClusterStatus.parse(answer).printTable(out);
        }
        out.flush();
        return 0;
    }

    /**
     * Where the agent is: its state folder, or the configuration file naming it.
     */
    static final class Where
    {
        @Option(names = "--state", paramLabel = "DIR", required = true, description = "The agent's state folder.")
        private Path stateFolder;

        @Option(names = "--config", paramLabel = "FILE", required = true,
            description = "The agent's configuration file, for its state folder.")
        private Path config;
    }
}
