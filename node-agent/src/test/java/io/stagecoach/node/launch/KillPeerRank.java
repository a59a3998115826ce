package io.stagecoach.node.launch;

import java.time.Duration;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import io.stagecoach.rank.bootstrap.LaunchEnvironment;
import io.stagecoach.rank.bootstrap.RendezvousClient;
import io.stagecoach.rank.bootstrap.RendezvousException;

/**
 * Rank 0 kills rank 1 with SIGKILL and measures how soon it is told; the other ranks wait in a fence that fails.
 * Every rank then hangs, to be ended by the launcher.
 */
public final class KillPeerRank
{
    private KillPeerRank()
    {
    }

    public static void main(final String[] args) throws InterruptedException
    {
        final LaunchEnvironment env = LaunchEnvironment.detect();
        System.out.println("pid " + ProcessHandle.current().pid());
        final RendezvousClient client = RendezvousClient.connect(env, Duration.ofSeconds(30));
        final LinkedBlockingQueue<String> deaths = new LinkedBlockingQueue<>();
        client.addListener((rank, reason) -> deaths.add(rank + ": " + reason));
        client.put("pid", Long.toString(ProcessHandle.current().pid()));
        client.fence(Duration.ofSeconds(30));
        if (env.rank() == 0)
        {
            final long victim = Long.parseLong(client.get(1, "pid"));
            final long startNs = System.nanoTime();
            ProcessHandle.of(victim).ifPresent(ProcessHandle::destroyForcibly);
            final String death = deaths.poll(10, TimeUnit.SECONDS);
            final long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNs);
            System.out.println("rank 0 saw rank " + death + " after " + elapsedMs + " ms");
        }
        if (env.rank() != 1)
        {
            try
            {
                client.fence(Duration.ofSeconds(30));
            }
            catch (final RendezvousException ex)
            {
                System.out.println("rank " + env.rank() + " caught: " + ex.getMessage());
            }
        }
        Thread.sleep(600_000);
    }
}
