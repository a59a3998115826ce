package io.stagecoach.node.cli;

import java.nio.file.Path;
import java.util.concurrent.Callable;

import io.stagecoach.node.agent.AgentSettings;
import io.stagecoach.node.agent.NodeAgent;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code stagecoach agent --config FILE}: runs this node's agent, a member of the agents' Pekko cluster, until
 * SIGTERM; {@code stagecoach agent status} asks a running agent about the cluster.
 */
@Command(
    name = "agent",
    mixinStandardHelpOptions = true,
    description = {
        "Run this node's agent: a member of the cluster of node agents (Pekko Cluster over Artery TCP) that joins " +
            "the seeds of its configuration file, logs members joining and leaving, and answers 'stagecoach agent " +
            "status' on a Unix domain socket in its state folder that only its user (and, where configured, its " +
            "group) can use. SIGTERM makes it leave the cluster, remove its socket and exit 0.",
        "" },
    subcommands = { AgentStatusCommand.class },
    sortOptions = false)
final class AgentCommand implements Callable<Integer>
{
    @Spec
    private CommandSpec spec;

    @Option(names = "--config", paramLabel = "FILE",
        description = "The agent's configuration file (HOCON, keys under stagecoach.agent; see docs/operations.md).")
    private Path config;

    public Integer call() throws Exception
    {
        if (config == null)
        {
            throw new CommandLine.ParameterException(spec.commandLine(),
                "missing --config FILE (or a command: status)");
        }
        final NodeAgent agent = NodeAgent.start(AgentSettings.load(config));
        agent.stopOnSignal();
        agent.awaitTermination();
        if (agent.stop())
        {
            spec.commandLine().getErr().println("stagecoach agent: this node was removed from the cluster");
            return 1;
        }
        return 0;
    }
}
