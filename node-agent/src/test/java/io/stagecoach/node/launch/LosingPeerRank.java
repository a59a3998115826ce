package io.stagecoach.node.launch;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import io.stagecoach.rank.bootstrap.LaunchEnvironment;
import io.stagecoach.rank.bootstrap.RendezvousClient;

/**
 * Rank 0 stops rank 1 with SIGSTOP, then does what a rank runtime does when a peer stops answering: reports it lost
 * ({@code LOST}) and exits with status 1. Rank 1, once stopped, hangs until the launcher ends it. With the argument
 * {@code quiet}, rank 0 exits without the report.
 */
public final class LosingPeerRank
{
    private LosingPeerRank()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final LaunchEnvironment env = LaunchEnvironment.detect();
        final long pid = ProcessHandle.current().pid();
        System.out.println("pid " + pid);
        final RendezvousClient client = RendezvousClient.connect(env, Duration.ofSeconds(30));
        client.put("pid", Long.toString(pid));
        client.fence(Duration.ofSeconds(30));
        if (env.rank() == 0)
        {
            final long peer = Long.parseLong(client.get(1, "pid"));
            new ProcessBuilder("kill", "-STOP", Long.toString(peer)).inheritIO().start().waitFor(10, TimeUnit.SECONDS);
            awaitStopped(peer);
            if (!(args.length > 0 && "quiet".equals(args[0])))
            {
                client.reportLostPeer(1, "no message from rank 1 for 0.2 s");
            }
            System.exit(1);
        }
        Thread.sleep(600_000);
    }

    private static void awaitStopped(final long pid) throws InterruptedException
    {
        final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (ProcessState.stateOf(Path.of("/proc", Long.toString(pid), "stat")) != 'T')
        {
            if (System.nanoTime() - deadlineNs >= 0)
            {
                throw new IllegalStateException("rank 1 (pid " + pid + ") was not stopped 10 s after SIGSTOP");
            }
            Thread.sleep(10);
        }
        Thread.sleep(200);
    }
}
