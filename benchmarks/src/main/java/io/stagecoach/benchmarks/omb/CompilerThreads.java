package io.stagecoach.benchmarks.omb;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;

/**
 * CPU time of this JVM's JIT compiler threads, read from {@code /proc/self/task/}: a compilation still running is
 * seen here, while the compilation MXBean adds its time only when it ends. On two cores one long C2 compilation
 * holds a core for seconds, and both ranks' spinning threads then share the other.
 */
final class CompilerThreads
{
    private static final Path TASKS = Paths.get("/proc/self/task");

    private CompilerThreads()
    {
    }

    /**
     * @return the user and system clock ticks of the threads named {@code C1 CompilerThre...} or
     * {@code C2 CompilerThre...}, summed; -1 where {@code /proc} cannot be read.
     */
    static long cpuTicks()
    {
        if (!Files.isDirectory(TASKS))
        {
            return -1;
        }
        long ticks = 0;
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(TASKS))
        {
            for (final Path task : tasks)
            {
                ticks += compilerTicks(task.resolve("stat"));
            }
        }
        catch (final IOException | RuntimeException ex)
        {
            return -1;
        }
        return ticks;
    }

    private static long compilerTicks(final Path stat)
    {
        final String text;
        try
        {
            text = new String(Files.readAllBytes(stat), StandardCharsets.US_ASCII);
        }
        catch (final IOException ex)
        {
            return 0; // the thread ended since the directory was listed
        }
        final int open = text.indexOf('(');
        final int close = text.lastIndexOf(')');
        final String name = text.substring(open + 1, close);
        if (!name.startsWith("C1 Compiler") && !name.startsWith("C2 Compiler"))
        {
            return 0;
        }
        // after "(name) " come state (field 3) ... utime (field 14) and stime (field 15)
        final String[] fields = text.substring(close + 2).split(" ");
        return Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
    }
}
