package io.stagecoach.node.agent;

import java.util.List;

/**
 * How an agent runs the ranks of jobs and how the cluster handles an agent that fails.
 *
 * @param rankPortBase    the first UDP port of ranks ({@code ranks.udp-port-base}): the ranks of each job on this
 *                        node get a block of {@value #PORTS_PER_JOB} ports from here, local rank i the i-th.
 * @param mpsControl      the CUDA MPS control command ({@code mps.control}), run for a job whose ranks here outnumber
 *                        the node's GPUs; {@code off} for never.
 * @param downingStrategy the split-brain resolver's strategy ({@code downing.strategy}): keep-majority (the side with
 *                        more agents stays, on a tie the one with the lowest address) or keep-oldest.
 * @param stableAfterMs   how long the membership must be stable before the resolver downs the unreachable side
 *                        ({@code downing.stable-after-ms}).
 * @param dashboard       where the live dashboard of the jobs submitted here and of the ranks running here is served.
 */
public record JobSettings(int rankPortBase, String mpsControl, String downingStrategy, int stableAfterMs,
    DashboardSettings dashboard)
{
    /** Ports of one job's ranks on one node: the most ranks a job may run on one node. */
    public static final int PORTS_PER_JOB = 256;
    /** The first rank port by default. */
    public static final int DEFAULT_RANK_PORT_BASE = 40100;
    /** The MPS control command by default. */
    public static final String DEFAULT_MPS_CONTROL = "nvidia-cuda-mps-control";
    /** The strategies the agent accepts. */
    public static final List<String> STRATEGIES = List.of("keep-majority", "keep-oldest");
    /** The strategy by default. */
    public static final String DEFAULT_STRATEGY = "keep-majority";
    /** Stable-after by default: with the failure detector's 2 s, a dead agent is downed about 4 s after it died. */
    public static final int DEFAULT_STABLE_AFTER_MS = 2000;

    /**
     * @return the defaults.
     */
    public static JobSettings defaults()
    {
        return new JobSettings(DEFAULT_RANK_PORT_BASE, DEFAULT_MPS_CONTROL, DEFAULT_STRATEGY,
            DEFAULT_STABLE_AFTER_MS, DashboardSettings.NONE);
    }

    /**
     * @return whether MPS is ever started.
     */
    public boolean mpsEnabled()
    {
        return !"off".equals(mpsControl);
    }
}
