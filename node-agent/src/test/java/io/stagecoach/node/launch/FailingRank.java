package io.stagecoach.node.launch;

import java.time.Duration;

import io.stagecoach.rank.bootstrap.LaunchEnvironment;
import io.stagecoach.rank.bootstrap.RendezvousClient;
import io.stagecoach.rank.bootstrap.RendezvousException;

/**
 * Ranks that pass one fence together; then rank {@code args[0]} exits with status {@code args[1]} while the others
 * wait in a second fence, which fails naming it.
 */
public final class FailingRank
{
    private FailingRank()
    {
    }

    public static void main(final String[] args)
    {
        final LaunchEnvironment env = LaunchEnvironment.detect();
        final RendezvousClient client = RendezvousClient.connect(env, Duration.ofSeconds(30));
        client.fence(Duration.ofSeconds(30));
        if (env.rank() == Integer.parseInt(args[0]))
        {
            System.exit(Integer.parseInt(args[1]));
        }
        try
        {
            client.fence(Duration.ofSeconds(30));
            System.out.println("rank " + env.rank() + ": second fence passed");
        }
        catch (final RendezvousException ex)
        {
            System.out.println("rank " + env.rank() + " caught: " + ex.getMessage());
            System.exit(1);
        }
    }
}
