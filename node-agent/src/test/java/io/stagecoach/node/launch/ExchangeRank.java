package io.stagecoach.node.launch;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.StringJoiner;

import io.stagecoach.rank.bootstrap.LaunchEnvironment;
import io.stagecoach.rank.bootstrap.RendezvousClient;

/**
 * A rank that puts a greeting, fences and prints what every rank put, with what its environment says.
 */
public final class ExchangeRank
{
    private ExchangeRank()
    {
    }

    public static void main(final String[] args)
    {
        final LaunchEnvironment env = LaunchEnvironment.detect();
        final long pid = ProcessHandle.current().pid();
        System.out.println("pid " + pid);
        try (RendezvousClient client = RendezvousClient.connect(env, Duration.ofSeconds(30)))
        {
            client.put("greeting", "hello from " + env.rank());
            client.fence(Duration.ofSeconds(30));
            final StringJoiner greetings = new StringJoiner("; ");
            for (int peer = 0; peer < env.size(); peer++)
            {
                greetings.add(client.get(peer, "greeting"));
            }
            System.out.println("rank " + env.rank() + " of " + env.size() + " got: " + greetings);
            final boolean driver = Files.exists(Path.of(env.aeronDirectory(), "cnc.dat"));
            System.out.println("rank " + env.rank() + " job " + env.jobId() + " GREETING=" + System.getenv("GREETING") +
                " driver=" + driver + " args=" + String.join(",", args));
            System.err.println("rank " + env.rank() + " says goodbye on stderr");
        }
    }
}
