package io.stagecoach.rank;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import io.stagecoach.pipeline.transport.aeron.EmbeddedMediaDriver;
import io.stagecoach.rank.bootstrap.JobFolder;
import io.stagecoach.rank.bootstrap.LaunchEnvironment;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Three rank processes on one node's media driver, launched the way a launcher does (environment variables), pass
 * a token around a ring; then the last rank is killed with SIGKILL while the others wait on it. Their requests must
 * fail within 2 s naming the dead rank, and they must still talk to each other.
 */
@Tag("system")
class RankProcessSystemTest
{
    private static final int SIZE = 3;

    @Test
    void shouldFailRequestsOnAKilledRankWithin2SecondsAndCarryOn() throws Exception
    {
        final String job = "system-" + ProcessHandle.current().pid();
        final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        final List<Process> processes = new ArrayList<>();
        try (JobFolder folder = JobFolder.create();
            EmbeddedMediaDriver driver = EmbeddedMediaDriver.launch(folder.aeronDirectory()))
        {
            for (int rank = 0; rank < SIZE; rank++)
            {
                processes.add(start(rank, job, driver.aeronDirectoryName(), lines));
            }
            assertNotNull(await(lines, "RING " + SIZE, 60), "the token went around the ring");
            assertNotNull(await(lines, "READY " + (SIZE - 1), 30));
            assertNotNull(await(lines, "WAITING 0", 30));
            assertNotNull(await(lines, "WAITING 1", 30));

            final long killedNs = System.nanoTime();
            processes.get(SIZE - 1).destroyForcibly();
            int failures = 0;
            while (failures < 4)
            {
                final String line = await(lines, "FAILED", 10);
                assertNotNull(line, "every request waiting on the killed rank fails");
                assertTrue(line.contains("FAILED peer=" + (SIZE - 1) + " rank " + (SIZE - 1) + " "), line);
                failures++;
                if (failures == 1)
                {
                    final long failedAfterMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedNs);
                    System.out.println("first failure " + failedAfterMs + " ms after the kill: " + line);
                    assertTrue(failedAfterMs < 2000, "failed " + failedAfterMs + " ms after the kill");
                }
            }
            assertNotNull(await(lines, "DONE 0", 20));
            assertNotNull(await(lines, "DONE 1", 20));
            assertEquals(0, processes.get(0).waitFor());
            assertEquals(0, processes.get(1).waitFor());
        }
        finally
        {
            processes.forEach(Process::destroyForcibly);
        }
    }

    private static Process start(final int rank, final String job, final String directory,
        final BlockingQueue<String> lines) throws IOException
    {
        final String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        final ProcessBuilder builder = new ProcessBuilder(java,
            "--add-opens", "java.base/jdk.internal.misc=ALL-UNNAMED",
            "--add-opens", "java.base/sun.nio.ch=ALL-UNNAMED",
            "-cp", System.getProperty("java.class.path"),
            RankProcessMain.class.getName());
        final Map<String, String> environment = builder.environment();
        environment.put(LaunchEnvironment.RANK, String.valueOf(rank));
        environment.put(LaunchEnvironment.SIZE, String.valueOf(SIZE));
        environment.put(LaunchEnvironment.JOB, job);
        environment.put(LaunchEnvironment.NODE, "node");
        environment.put(LaunchEnvironment.AERON_DIR, directory);
        builder.redirectErrorStream(true);
        final Process process = builder.start();
        final Thread reader = new Thread(() ->
        {
            try (BufferedReader in = new BufferedReader(
                new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8)))
            {
                String line;
                while ((line = in.readLine()) != null)
                {
                    System.out.println("[rank " + rank + "] " + line);
                    lines.add(line);
                }
            }
            catch (final IOException ignored)
            {
                lines.add("EOF " + rank);
            }
        }, "rank-" + rank + "-output");
        reader.setDaemon(true);
        reader.start();
        return process;
    }

    private static String await(final BlockingQueue<String> lines, final String prefix, final int seconds)
        throws InterruptedException
    {
        final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        final List<String> skipped = new ArrayList<>();
        try
        {
            while (true)
            {
                final String line = lines.poll(Math.max(1, deadlineNs - System.nanoTime()), TimeUnit.NANOSECONDS);
                if (line == null)
                {
                    return null;
                }
                if (line.startsWith(prefix))
                {
                    return line;
                }
                skipped.add(line);
            }
        }
        finally
        {
            lines.addAll(skipped);
        }
    }
}
