package io.stagecoach.node.launch;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Binds rank processes to CPU cores, as {@code mpirun --bind-to core} does: rank r runs on the r-th core (modulo
 * their number) of those this launcher may use, through util-linux's {@code taskset}. A spinning rank then keeps
 * its core instead of being moved next to its peer by the scheduler.
 */
final class CoreBinding
{
    private final int[] cpus;

    private CoreBinding(final int[] cpus)
    {
        this.cpus = cpus;
    }

    /**
     * @return the binding over the CPUs this process may run on.
     * @throws IllegalStateException naming what is missing when taskset or the CPU list cannot be found.
     */
    static CoreBinding ofThisProcess()
    {
        if (!onPath("taskset"))
        {
            throw new IllegalStateException("--bind-to core needs taskset (util-linux) on the PATH, and it is not");
        }
        try
        {
            for (final String line : Files.readAllLines(Path.of("/proc/self/status")))
            {
                if (line.startsWith("Cpus_allowed_list:"))
                {
                    return new CoreBinding(parseCpuList(line.substring(line.indexOf(':') + 1).trim()));
                }
            }
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException("--bind-to core could not read /proc/self/status: " + ex.getMessage(), ex);
        }
        throw new IllegalStateException("--bind-to core found no Cpus_allowed_list in /proc/self/status");
    }

    /**
     * @param text a Linux CPU list such as {@code 0-3,8,10-11}.
     * @return the CPUs in order.
     * @throws IllegalArgumentException naming the text when it is not one.
     */
    static int[] parseCpuList(final String text)
    {
        final List<Integer> cpus = new ArrayList<>();
        try
        {
            for (final String part : text.split(","))
            {
                final int dash = part.indexOf('-');
                final int first = Integer.parseInt(dash < 0 ? part.trim() : part.substring(0, dash).trim());
                final int last = dash < 0 ? first : Integer.parseInt(part.substring(dash + 1).trim());
                if (first < 0 || last < first)
                {
                    throw new NumberFormatException("range " + part);
                }
                for (int cpu = first; cpu <= last; cpu++)
                {
                    cpus.add(cpu);
                }
            }
        }
        catch (final NumberFormatException ex)
        {
            throw new IllegalArgumentException("CPU list '" + text + "' is not of the form 0-3,8,10-11", ex);
        }
        return cpus.stream().mapToInt(Integer::intValue).toArray();
    }

    /**
     * @param rank    a rank.
     * @param command the rank's command.
     * @return the command run by taskset on the rank's core.
     */
    List<String> bind(final int rank, final List<String> command)
    {
        final List<String> bound = new ArrayList<>(command.size() + 3);
        bound.add("taskset");
        bound.add("-c");
        bound.add(Integer.toString(cpuOf(rank)));
        bound.addAll(command);
        return bound;
    }

    int cpuOf(final int rank)
    {
        return cpus[rank % cpus.length];
    }

    private static boolean onPath(final String program)
    {
        final String path = System.getenv("PATH");
        if (path == null)
        {
            return false;
        }
        for (final String directory : path.split(File.pathSeparator))
        {
            if (!directory.isEmpty() && Files.isExecutable(Path.of(directory, program)))
            {
                return true;
            }
        }
        return false;
    }
}
