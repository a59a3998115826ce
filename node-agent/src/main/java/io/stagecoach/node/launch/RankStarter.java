package io.stagecoach.node.launch;

import java.io.IOException;
import java.util.Map;

/**
 * Starts one rank's process: {@link RankProcess#start} unless a test puts something slower or failing in its place
 * ({@link LaunchContext#rankStarter(RankStarter)}).
 */
@FunctionalInterface
interface RankStarter
{
    /**
     * @param context     of the job.
     * @param rank        to start.
     * @param environment the rank's own variables, besides those it inherits.
     * @param binding     to a core, or null.
     * @return the started process.
     * @throws IOException when the process could not be started.
     */
    RankProcess start(LaunchContext context, int rank, Map<String, String> environment, CoreBinding binding)
        throws IOException;
}
