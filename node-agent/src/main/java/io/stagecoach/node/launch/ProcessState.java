package io.stagecoach.node.launch;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * What a process is doing, from {@code /proc/<pid>/stat} (Linux): a JVM whose main thread sleeps is running while
 * any of its threads runs, and a stopped process is one that got SIGSTOP or SIGTSTP.
 */
final class ProcessState
{
    private static final char UNKNOWN = '?';

    private ProcessState()
    {
    }

    /**
     * @param pid of the process.
     * @return e.g. {@code "running"}, {@code "sleeping"}, {@code "stopped (SIGSTOP or SIGTSTP)"}, or
     * {@code "state unknown"} when {@code /proc} does not say.
     */
    static String describe(final long pid)
    {
        final Path directory = Path.of("/proc", Long.toString(pid));
        final char state = stateOf(directory.resolve("stat"));
        if (state == 'S' && anyThreadRunning(directory.resolve("task")))
        {
            return describe('R');
        }
        return describe(state);
    }

    static String describe(final char state)
    {
        return switch (state)
        {
            case 'R' -> "running";
            case 'S' -> "sleeping";
            case 'D' -> "waiting in the kernel (D)";
            case 'T' -> "stopped (SIGSTOP or SIGTSTP)";
            case 't' -> "stopped by a debugger";
            case 'Z' -> "exited, not yet reaped";
            case 'X', 'x' -> "dead";
            case UNKNOWN -> "state unknown";
            default -> "state " + state;
        };
    }

    /**
     * @param stat a {@code stat} file of {@code /proc}.
     * @return its state letter, the field after the command in parentheses; {@code '?'} when it cannot be read.
     */
    static char stateOf(final Path stat)
    {
        try
        {
            final String text = Files.readString(stat);
            final int end = text.lastIndexOf(')');
            return end > 0 && end + 2 < text.length() ? text.charAt(end + 2) : UNKNOWN;
        }
        catch (final IOException | RuntimeException ex)
        {
            return UNKNOWN;
        }
    }

    private static boolean anyThreadRunning(final Path tasks)
    {
        try (DirectoryStream<Path> threads = Files.newDirectoryStream(tasks))
        {
            for (final Path thread : threads)
            {
                if (stateOf(thread.resolve("stat")) == 'R')
                {
                    return true;
                }
            }
        }
        catch (final IOException | RuntimeException ex)
        {
            return false;
        }
        return false;
    }
}
