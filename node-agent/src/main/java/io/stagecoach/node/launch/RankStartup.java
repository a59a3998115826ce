package io.stagecoach.node.launch;

import java.io.IOException;
import java.util.HashMap;
import java.util.Map;

import io.stagecoach.rank.bootstrap.LaunchEnvironment;

/**
 * Starts the ranks of one job, one at a time: each gets the job's {@code STAGECOACH_*} variables (the secret among
 * them, in its environment, never on its command line) and its own rank.
 */
final class RankStartup
{
    private final LaunchContext context;
    private final CoreBinding binding;
    private final Map<String, String> jobEnvironment = new HashMap<>();

    RankStartup(
        final LaunchContext context,
        final JobEvents rendezvous,
        final String aeronDirectory,
        final CoreBinding binding)
    {
        this.context = context;
        this.binding = binding;
        jobEnvironment.putAll(context.environment());
        jobEnvironment.put(LaunchEnvironment.SIZE, Integer.toString(context.size()));
        jobEnvironment.put(LaunchEnvironment.JOB, context.jobId());
        jobEnvironment.put(LaunchEnvironment.RENDEZVOUS, rendezvous.rendezvousAddress());
        jobEnvironment.put(LaunchEnvironment.SECRET, rendezvous.secretText());
        jobEnvironment.put(LaunchEnvironment.AERON_DIR, aeronDirectory);
        jobEnvironment.put(LaunchEnvironment.NODE, context.nodeName());
    }

    /**
     * @param localRank the index of the rank to start among this launcher's ranks.
     * @return its process.
     * @throws LaunchException naming the rank and the command when it could not be started.
     */
    RankProcess start(final int localRank)
    {
        final int rank = context.globalRank(localRank);
        final Map<String, String> environment = new HashMap<>(jobEnvironment);
        environment.put(LaunchEnvironment.RANK, Integer.toString(rank));
        environment.put(LaunchEnvironment.LOCAL_RANK, Integer.toString(localRank));
        try
        {
            return context.rankStarter().start(context, rank, environment, binding);
        }
        catch (final IOException ex)
        {
            throw new LaunchException(
                "could not start rank " + rank + " with " + context.command().get(0) + ": " + ex.getMessage(), ex);
        }
    }
}
