package io.stagecoach.node.agent;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntSupplier;
import java.util.regex.Pattern;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigParseOptions;
import com.typesafe.config.ConfigValue;
import com.typesafe.config.ConfigValueType;
import io.stagecoach.node.dashboard.DashboardContext;

/**
 * What an agent's configuration file (HOCON, under {@code stagecoach.agent}) gives, validated: the node's name, the
 * host and port Artery binds, the seed agents, the state folder holding the control socket, the node's GPUs and
 * whether the agent's group may use the control socket.
 *
 * @param nodeName    the node's name, shown by {@code agent status}.
 * @param host        the host or address Artery binds and others reach this agent at.
 * @param port        the Artery TCP port.
 * @param seeds       the agents a starting agent joins through, in order; the first one joins itself.
 * @param stateFolder the agent's private folder (0700), holding the control socket.
 * @param gpus        the node's GPUs.
 * @param groupAccess true where the agent's group may use the control socket too (0660 instead of 0600).
 * @param clusterKey  the cluster's key, for TLS between agents ({@code tls.key-store}, {@code tls.password-file});
 *                    null for plain TCP.
 * @param jobs        how the agent runs the ranks of jobs and handles nodes that fail.
 */
public record AgentSettings(String nodeName, String host, int port, List<SeedAddress> seeds, Path stateFolder,
    int gpus, boolean groupAccess, ClusterKey clusterKey, JobSettings jobs)
{
    /** Where the agent's keys live in the file. */
    public static final String PREFIX = "stagecoach.agent.";
    /** The largest number of seeds. */
    public static final int MAX_SEEDS = 64;

    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,62}");

    /**
     * @param file the configuration file.
     * @return its settings, with {@code gpus = auto} resolved by the device layer.
     * @throws AgentConfigException when the file cannot be read or a value is refused.
     */
    public static AgentSettings load(final Path file)
    {
        return load(file, GpuCount::detect);
    }

    /**
     * @param file     the configuration file.
     * @param detector what {@code gpus = auto} counts.
     * @return its settings.
     * @throws AgentConfigException when the file cannot be read or a value is refused.
     */
    public static AgentSettings load(final Path file, final IntSupplier detector)
    {
        if (!Files.isRegularFile(file))
        {
            throw new AgentConfigException("configuration file " + file + " is missing or no regular file", null);
        }
        final Config config;
        try
        {
            config = ConfigFactory.parseFile(file.toFile(), ConfigParseOptions.defaults().setAllowMissing(false))
                .resolve();
        }
        catch (final ConfigException ex)
        {
            throw new AgentConfigException("configuration file " + file + " cannot be read: " + ex.getMessage(), ex);
        }
        return from(config, detector);
    }

    /**
     * @param config   the parsed file.
     * @param detector what {@code gpus = auto} counts.
     * @return the settings.
     * @throws AgentConfigException when a value is missing or refused.
     */
    public static AgentSettings from(final Config config, final IntSupplier detector)
    {
        final String nodeName = string(config, "node-name",
            "a name of 1 to 63 letters, digits, '.', '_' or '-', starting with a letter or digit");
        if (!NAME.matcher(nodeName).matches())
        {
            throw new AgentConfigException(PREFIX + "node-name", nodeName,
                "a name of 1 to 63 letters, digits, '.', '_' or '-', starting with a letter or digit");
        }
        final String host = string(config, "bind.host", "a host name or address, not empty");
        if (host.isBlank() || host.chars().anyMatch(Character::isWhitespace))
        {
            throw new AgentConfigException(PREFIX + "bind.host", "\"" + host + "\"",
                "a host name or address, not empty, without spaces");
        }
        final int port = integer(config, "bind.port", 1, 65535);
        final List<SeedAddress> seeds = seeds(config);
        final Path stateFolder = Path.of(string(config, "state-dir", "an absolute path"));
        if (!stateFolder.isAbsolute())
        {
            throw new AgentConfigException(PREFIX + "state-dir", stateFolder, "an absolute path");
        }
        final int gpus = gpus(config, detector);
        final String groupKey = PREFIX + "control.group-access";
        final boolean groupAccess;
        try
        {
            groupAccess = config.hasPath(groupKey) && config.getBoolean(groupKey);
        }
        catch (final ConfigException.WrongType ex)
        {
            throw new AgentConfigException(groupKey, config.getValue(groupKey).render(), "true or false");
        }
        return new AgentSettings(nodeName, host, port, List.copyOf(seeds), stateFolder, gpus, groupAccess,
            clusterKey(config), jobs(config));
    }

    private static JobSettings jobs(final Config config)
    {
        final int portBase = config.hasPath(PREFIX + "ranks.udp-port-base") ?
            integer(config, "ranks.udp-port-base", 1024, 65535 - JobSettings.PORTS_PER_JOB * 64) :
            JobSettings.DEFAULT_RANK_PORT_BASE;
        final String mps = config.hasPath(PREFIX + "mps.control") ?
            string(config, "mps.control", "a command, or off") : JobSettings.DEFAULT_MPS_CONTROL;
        final String strategy = config.hasPath(PREFIX + "downing.strategy") ?
            string(config, "downing.strategy", String.join(" or ", JobSettings.STRATEGIES)) :
            JobSettings.DEFAULT_STRATEGY;
        if (!JobSettings.STRATEGIES.contains(strategy))
        {
            throw new AgentConfigException(PREFIX + "downing.strategy", strategy,
                String.join(" or ", JobSettings.STRATEGIES));
        }
        final int stableAfterMs = config.hasPath(PREFIX + "downing.stable-after-ms") ?
            integer(config, "downing.stable-after-ms", 500, 600_000) : JobSettings.DEFAULT_STABLE_AFTER_MS;
        return new JobSettings(portBase, mps, strategy, stableAfterMs, dashboard(config));
    }

    private static DashboardSettings dashboard(final Config config)
    {
        final int port = config.hasPath(PREFIX + "dashboard.port") ? integer(config, "dashboard.port", 0, 65535) : -1;
        final String address = config.hasPath(PREFIX + "dashboard.address") ?
            string(config, "dashboard.address", "an IP address or host name") : DashboardSettings.NONE.address();
        final boolean loopback;
        try
        {
            loopback = DashboardContext.isLoopback(address);
        }
        catch (final IllegalArgumentException ex)
        {
            throw new AgentConfigException(PREFIX + "dashboard.address", address, "an address that resolves");
        }
        Path tokenFile = null;
        if (config.hasPath(PREFIX + "dashboard.token-file"))
        {
            tokenFile = Path.of(string(config, "dashboard.token-file", "an absolute path"));
            if (!tokenFile.isAbsolute())
            {
                throw new AgentConfigException(PREFIX + "dashboard.token-file", tokenFile, "an absolute path");
            }
        }
        else if (!loopback && port >= 0)
        {
            throw new AgentConfigException(PREFIX + "dashboard.token-file", null, "given where dashboard.address (" +
                address + ") is not a loopback address: the file holding the token the page asks for (mode 0600)");
        }
        final int barsPerSecond = config.hasPath(PREFIX + "dashboard.bars-per-second") ?
            integer(config, "dashboard.bars-per-second", DashboardContext.MIN_BARS_PER_SECOND,
                DashboardContext.MAX_BARS_PER_SECOND) :
            DashboardContext.DEFAULT_BARS_PER_SECOND;
        return new DashboardSettings(port, address, tokenFile, barsPerSecond);
    }

    /**
     * @return the cluster key where both {@code tls.key-store} and {@code tls.password-file} are given, null where
     * neither is.
     */
    private static ClusterKey clusterKey(final Config config)
    {
        final String keyStore = PREFIX + "tls.key-store";
        final String passwordFile = PREFIX + "tls.password-file";
        if (!config.hasPath(keyStore) && !config.hasPath(passwordFile))
        {
            return null;
        }
        if (!config.hasPath(keyStore) || !config.hasPath(passwordFile))
        {
            throw new AgentConfigException(config.hasPath(keyStore) ? passwordFile : keyStore, null,
                "given together with " + (config.hasPath(keyStore) ? keyStore : passwordFile));
        }
        return ClusterKey.read(keyStore, Path.of(string(config, "tls.key-store", "an absolute path")),
            passwordFile, Path.of(string(config, "tls.password-file", "an absolute path")));
    }

    /**
     * @return whether this agent may run ranks of jobs: with the cluster's key (TLS), so that a process without it can
     * neither join nor submit, or where Artery binds the loopback network (agents of one machine, for tests), where
     * it runs only the jobs submitted to it ({@code JobsBehavior}): any local user may reach a loopback port.
     */
    public boolean runsJobs()
    {
        return null != clusterKey || "localhost".equalsIgnoreCase(host) || host.startsWith("127.") ||
            "::1".equals(host) || "[::1]".equals(host);
    }

    /**
     * @return this agent's own address as a seed would name it.
     */
    public SeedAddress selfAddress()
    {
        return new SeedAddress(host, port);
    }

    private static String string(final Config config, final String key, final String limit)
    {
        final String path = PREFIX + key;
        if (!config.hasPath(path))
        {
            throw new AgentConfigException(path, null, limit);
        }
        final ConfigValue value = config.getValue(path);
        if (value.valueType() != ConfigValueType.STRING && value.valueType() != ConfigValueType.NUMBER)
        {
            throw new AgentConfigException(path, value.render(), limit);
        }
        return String.valueOf(value.unwrapped());
    }

    /**
     * @return the value as a whole number.
     * @throws AgentConfigException naming the key, the value and the limit where it is none.
     */
    private static long whole(final String path, final ConfigValue value, final String limit)
    {
        try
        {
            return Long.parseLong(String.valueOf(value.unwrapped()).trim());
        }
        catch (final NumberFormatException ex)
        {
            throw new AgentConfigException(path, value.render(), limit);
        }
    }

    private static int integer(final Config config, final String key, final int min, final int max)
    {
        final String path = PREFIX + key;
        final String limit = "a whole number in [" + min + ", " + max + "]";
        if (!config.hasPath(path))
        {
            throw new AgentConfigException(path, null, limit);
        }
        final ConfigValue value = config.getValue(path);
        final long number = whole(path, value, limit);
        if (number < min || number > max)
        {
            throw new AgentConfigException(path, number, limit);
        }
        return (int)number;
    }

    private static List<SeedAddress> seeds(final Config config)
    {
        final String path = PREFIX + "seeds";
        final String limit = "a list of 1 to " + MAX_SEEDS + " host:port entries";
        if (!config.hasPath(path))
        {
            throw new AgentConfigException(path, null, limit);
        }
        final List<String> texts;
        try
        {
            texts = config.getStringList(path);
        }
        catch (final ConfigException.WrongType ex)
        {
            throw new AgentConfigException(path, config.getValue(path).render(), limit);
        }
        if (texts.isEmpty() || texts.size() > MAX_SEEDS)
        {
            throw new AgentConfigException(path, texts, limit);
        }
        final List<SeedAddress> seeds = new ArrayList<>();
        for (int i = 0; i < texts.size(); i++)
        {
            final SeedAddress seed = SeedAddress.parse(path + "[" + i + "]", texts.get(i));
            if (seeds.contains(seed))
            {
                throw new AgentConfigException(path + "[" + i + "]", texts.get(i), "listed once");
            }
            seeds.add(seed);
        }
        return seeds;
    }

    private static int gpus(final Config config, final IntSupplier detector)
    {
        final String path = PREFIX + "gpus";
        if (!config.hasPath(path) || "auto".equals(String.valueOf(config.getValue(path).unwrapped())))
        {
            return detector.getAsInt();
        }
        final String limit = "auto or a whole number in [0, " + GpuCount.MAX + "]";
        final ConfigValue value = config.getValue(path);
        final long number = whole(path, value, limit);
        if (number < 0 || number > GpuCount.MAX)
        {
            throw new AgentConfigException(path, number, limit);
        }
        return (int)number;
    }
}
