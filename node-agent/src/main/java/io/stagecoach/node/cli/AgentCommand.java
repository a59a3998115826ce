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
        final AgentSettings settings = AgentSettings.load(config);
        if (!clusterOnClassPath())
        {
            spec.commandLine().getErr().println("stagecoach agent: Pekko Cluster is not on the class path (a bundle " +
                "made by bin/build-bundle leaves it out: it is for GPU runs); run agents from a build of the " +
                "repository or an installation that has node-agent's libraries");
            return 2;
        }
        final NodeAgent agent = NodeAgent.start(settings);
        agent.stopOnSignal();
        agent.awaitTermination();
        if (agent.stop())
        {
            spec.commandLine().getErr().println("stagecoach agent: this node was removed from the cluster");
            return 1;
        }
        return 0;
    }

    private static boolean clusterOnClassPath()
    {
        try
        {
            Class.forName("org.apache.pekko.cluster.ClusterActorRefProvider", false,
                AgentCommand.class.getClassLoader());
            return true;
        }
        catch (final ClassNotFoundException ex)
        {
            return false;
        }
    }
}
