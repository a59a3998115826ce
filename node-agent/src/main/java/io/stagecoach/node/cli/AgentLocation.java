package io.stagecoach.node.cli;

import java.nio.file.Path;

import io.stagecoach.node.agent.AgentSettings;
import io.stagecoach.node.agent.StateFolder;
import picocli.CommandLine.Option;

/**
 * Where the local agent's control socket is: {@code --agent-state DIR}, or the state folder of the configuration file
 * {@code --agent-config FILE}, {@code $STAGECOACH_AGENT_CONFIG} or {@value #DEFAULT_CONFIG}, in that order.
 */
final class AgentLocation
{
    /** The configuration file an installed agent reads. */
    static final String DEFAULT_CONFIG = "/etc/stagecoach/agent.conf";
    /** The variable naming another configuration file. */
    static final String CONFIG_VARIABLE = "STAGECOACH_AGENT_CONFIG";

    @Option(names = "--agent-state", paramLabel = "DIR", description = "The local agent's state folder.")
    private Path stateFolder;

    @Option(names = "--agent-config", paramLabel = "FILE",
        description = "The local agent's configuration file (default $" + CONFIG_VARIABLE + ", else " +
            DEFAULT_CONFIG + ").")
    private Path config;

    /**
     * @return the control socket.
     * @throws io.stagecoach.node.agent.AgentConfigException where the configuration cannot be read.
     */
    Path socket()
    {
        if (null != stateFolder)
        {
            return StateFolder.socketOf(stateFolder);
        }
        final String variable = System.getenv(CONFIG_VARIABLE);
        final Path file = null != config ? config :
            Path.of(null != variable && !variable.isBlank() ? variable : DEFAULT_CONFIG);
        return StateFolder.socketOf(AgentSettings.load(file, () -> 0).stateFolder());
    }
}
