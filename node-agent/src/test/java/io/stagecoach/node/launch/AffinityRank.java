package io.stagecoach.node.launch;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A rank that prints its rank and the CPUs it may run on, from /proc/self/status.
 */
public final class AffinityRank
{
    private AffinityRank()
    {
    }

    public static void main(final String[] args) throws IOException
    {
        final String cpus = Files.readAllLines(Path.of("/proc/self/status")).stream()
            .filter(line -> line.startsWith("Cpus_allowed_list:"))
            .map(line -> line.substring(line.indexOf(':') + 1).trim())
            .findFirst()
            .orElse("?");
        System.out.println("rank " + System.getenv("STAGECOACH_RANK") + " cpus " + cpus);
    }
}
