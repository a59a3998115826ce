package io.stagecoach.node.agent;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;

/**
 * The Pekko configuration of an agent's actor system: a cluster member over Artery TCP (TLS with mutual authentication
 * by the cluster's key where one is configured) at the configured host and port, joining the seeds, with the node's name and GPU count as roles ({@code node-NAME}, {@code gpus-N}), logging
 * through SLF4J, and shut down by the agent itself on SIGTERM rather than by Pekko's JVM shutdown hook.
 */
public final class AgentSystemConfig
{
    /** The actor system's name, the same on every agent. */
    public static final String SYSTEM_NAME = "stagecoach";
    /** Start of the role naming the node. */
    public static final String NODE_ROLE = "node-";
    /** Start of the role giving the node's GPU count. */
    public static final String GPUS_ROLE = "gpus-";

    private AgentSystemConfig()
    {
    }

    /**
     * @param settings the agent's settings.
     * @return the configuration, over Pekko's defaults.
     */
    public static Config of(final AgentSettings settings)
    {
        final List<String> seeds = new ArrayList<>();
        for (final SeedAddress seed : settings.seeds())
        {
            seeds.add(seed.pekkoAddress(SYSTEM_NAME));
        }
        final Map<String, Object> values = new HashMap<>();
        values.put("pekko.actor.provider", "cluster");
        values.put("pekko.remote.artery.transport", settings.clusterKey() == null ? "tcp" : "tls-tcp");
        if (settings.clusterKey() != null)
        {
            final String engine = "pekko.remote.artery.ssl.config-ssl-engine.";
            final String store = settings.clusterKey().keyStore().toString();
            final String password = settings.clusterKey().password();
            values.put(engine + "key-store", store);
            values.put(engine + "trust-store", store);
            values.put(engine + "key-store-password", password);
            values.put(engine + "key-password", password);
            values.put(engine + "trust-store-password", password);
            values.put(engine + "protocol", "TLSv1.3");
            values.put(engine + "enabled-algorithms", List.of("TLS_AES_256_GCM_SHA384", "TLS_AES_128_GCM_SHA256"));
            values.put(engine + "require-mutual-authentication", "on");
            values.put(engine + "hostname-verification", "off");
        }
        values.put("pekko.remote.artery.canonical.hostname", settings.host());
        values.put("pekko.remote.artery.canonical.port", settings.port());
        values.put("pekko.cluster.seed-nodes", seeds);
        values.put("pekko.cluster.roles", List.of(NODE_ROLE + settings.nodeName(), GPUS_ROLE + settings.gpus()));
        values.put("pekko.cluster.jmx.enabled", "off");
        values.put("pekko.cluster.downing-provider-class",
            "org.apache.pekko.cluster.sbr.SplitBrainResolverProvider");
        values.put("pekko.cluster.split-brain-resolver.active-strategy", settings.jobs().downingStrategy());
        values.put("pekko.cluster.split-brain-resolver.stable-after", settings.jobs().stableAfterMs() + "ms");
        values.put("pekko.cluster.split-brain-resolver.keep-oldest.down-if-alone", "on");
        values.put("pekko.cluster.failure-detector.heartbeat-interval", "500ms");
        values.put("pekko.cluster.failure-detector.acceptable-heartbeat-pause", "2s");
        values.put("pekko.actor.serializers.stagecoach-jobs", "io.stagecoach.node.jobs.JobMessageSerializer");

        values.put("pekko.cluster.log-info", "off");
        values.put("pekko.coordinated-shutdown.run-by-jvm-shutdown-hook", "off");
        values.put("pekko.jvm-shutdown-hooks", "off");
        values.put("pekko.coordinated-shutdown.exit-jvm", "off");
        values.put("pekko.coordinated-shutdown.phases.cluster-exiting.timeout", "5s");
        values.put("pekko.loggers", List.of("org.apache.pekko.event.slf4j.Slf4jLogger"));
        values.put("pekko.logging-filter", "org.apache.pekko.event.slf4j.Slf4jLoggingFilter");
        values.put("pekko.loglevel", "INFO");
        values.put("pekko.log-dead-letters", "off");
        values.put("pekko.log-dead-letters-during-shutdown", "off");
        return ConfigFactory.parseMap(values)
            .withFallback(ConfigFactory.parseString(
                "pekko.actor.serialization-bindings { \"io.stagecoach.node.jobs.JobMessage\" = stagecoach-jobs }"))
            .withFallback(ConfigFactory.defaultReference()).resolve();
    }
}
