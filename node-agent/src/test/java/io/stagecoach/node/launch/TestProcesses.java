package io.stagecoach.node.launch;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What system tests read from the output of jobs and look up in the process table.
 */
final class TestProcesses
{
    private TestProcesses()
    {
    }

    /**
     * @return the first group of every match of the pattern, as numbers (pids).
     */
    static List<Long> pids(final Pattern pattern, final String text)
    {
        final List<Long> pids = new ArrayList<>();
        final Matcher matcher = pattern.matcher(text);
        while (matcher.find())
        {
            pids.add(Long.parseLong(matcher.group(1)));
        }
        return pids;
    }

    /**
     * Waits up to 20 s until a file holds {@code count} matches of the pattern.
     *
     * @return the first group of each match, as numbers.
     */
    static List<Long> awaitMatches(final Path file, final Pattern pattern, final int count)
        throws IOException, InterruptedException
    {
        final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        List<Long> matches = List.of();
        while (System.nanoTime() - deadlineNs < 0)
        {
            matches = pids(pattern, Files.readString(file));
            if (matches.size() >= count)
            {
                return matches;
            }
            Thread.sleep(50);
        }
        throw new AssertionError("waited 20 s for " + count + " lines matching " + pattern + ", got " + matches +
            " in:\n" + read(file));
    }

    /**
     * Asserts that every process is gone (or a zombie) within 3 s.
     */
    static void assertAllGone(final List<Long> pids)
    {
        final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
        for (final long pid : pids)
        {
            while (isRunning(pid))
            {
                assertTrue(System.nanoTime() - deadlineNs < 0, "process " + pid + " still runs 3 s after the job");
                Thread.onSpinWait();
            }
        }
    }

    static boolean isRunning(final long pid)
    {
        if (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false))
        {
            try
            {
                final String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
                return stat.charAt(stat.lastIndexOf(')') + 2) != 'Z';
            }
            catch (final IOException ex)
            {
                return false;
            }
        }
        return false;
    }

    static String read(final Path file)
    {
        try
        {
            return Files.readString(file);
        }
        catch (final IOException ex)
        {
            return ex.toString();
        }
    }
}
