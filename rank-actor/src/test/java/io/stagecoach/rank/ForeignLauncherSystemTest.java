package io.stagecoach.rank;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.stagecoach.rank.bootstrap.LaunchEnvironment;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Two rank processes started the way Open MPI starts them, without a launcher of ours: the first local rank creates
 * the job's folder, whose name both derive from the job id, and runs the media driver in it; the other checks it.
 */
@Tag("system")
@Timeout(90)
class ForeignLauncherSystemTest
{
    @Test
    void shouldRunTheDriverInAPrivateFolderBothRanksDeriveAndDeleteItAtTheEnd() throws Exception
    {
        final String job = "foreign-" + ProcessHandle.current().pid();
        final Path folder = Path.of(LaunchEnvironment.defaultAeronDirectory(job)).getParent();

        final List<String> outputs = runJob(job);

        assertTrue(outputs.get(1).contains("GOT hello from 0\n"), outputs.toString());
        for (final String output : outputs)
        {
            assertTrue(output.contains("FOLDER " + folder + " rwx------\n"), outputs.toString());
        }
        assertFalse(Files.exists(folder, LinkOption.NOFOLLOW_LINKS), folder + " is deleted at the end");
    }

    @Test
    void shouldKeepTheDriverForARankOfTheNodeThatClosesLongAfterTheOne() throws Exception
    {
        final String job = "linger-" + ProcessHandle.current().pid();
        final Path folder = Path.of(LaunchEnvironment.defaultAeronDirectory(job)).getParent();

        final List<String> outputs = runJob(job, "-Dstagecoach.close.timeout.ms=1000", "3000");

        assertTrue(outputs.get(1).contains("STILL true\n"), outputs.toString());
        assertFalse(outputs.get(1).contains("ERROR"), outputs.toString());
        assertFalse(Files.exists(folder, LinkOption.NOFOLLOW_LINKS), folder + " is deleted at the end");
    }

    @Test
    void shouldRefuseAFolderPlantedAtTheDerivedNameAndDeleteNothing(@TempDir final Path victim) throws Exception
    {
        final String job = "planted-" + ProcessHandle.current().pid();
        final Path folder = Path.of(LaunchEnvironment.defaultAeronDirectory(job)).getParent();
        Files.writeString(victim.resolve("precious"), "keep me");
        Files.createSymbolicLink(folder, victim);
        try
        {
            final List<String> outputs = runJob(job);

            assertTrue(outputs.get(0).contains("ERROR cannot create the private folder " + folder +
                ": something exists there already"), outputs.toString());
            assertTrue(outputs.get(1).contains("ERROR " + folder + " is not a private folder of uid"),
                outputs.toString());
            assertEquals("keep me", Files.readString(victim.resolve("precious")));
        }
        finally
        {
            Files.deleteIfExists(folder);
        }
    }

    private static List<String> runJob(final String job, final String... closeTimeoutAndLinger)
        throws IOException, InterruptedException
    {
        final List<Process> processes = new ArrayList<>();
        try
        {
            for (int rank = 0; rank < 2; rank++)
            {
                processes.add(start(rank, job, closeTimeoutAndLinger));
            }
            final List<String> outputs = new ArrayList<>();
            for (final Process process : processes)
            {
                final String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                assertTrue(process.waitFor(60, TimeUnit.SECONDS), "waited 60 s for a rank: " + output);
                outputs.add(output);
            }
            return outputs;
        }
        finally
        {
            processes.forEach(Process::destroyForcibly);
        }
    }

    private static Process start(final int rank, final String job, final String... closeTimeoutAndLinger)
        throws IOException
    {
        final List<String> command = new ArrayList<>(List.of(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "--add-opens", "java.base/jdk.internal.misc=ALL-UNNAMED",
            "--add-opens", "java.base/sun.nio.ch=ALL-UNNAMED",
            "-Dstagecoach.connect.timeout.ms=20000"));
        if (closeTimeoutAndLinger.length == 2)
        {
            command.add(closeTimeoutAndLinger[0]);
        }
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), ForeignRankMain.class.getName()));
        if (closeTimeoutAndLinger.length == 2)
        {
            command.add(closeTimeoutAndLinger[1]);
        }
        final ProcessBuilder builder = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT);
        final Map<String, String> environment = builder.environment();
        environment.keySet().removeIf(name -> name.startsWith("STAGECOACH_") || name.startsWith("OMPI_") ||
            name.startsWith("PMI_") || name.startsWith("SLURM_"));
        environment.put("OMPI_COMM_WORLD_RANK", Integer.toString(rank));
        environment.put("OMPI_COMM_WORLD_SIZE", "2");
        environment.put("OMPI_COMM_WORLD_LOCAL_RANK", Integer.toString(rank));
        environment.put(LaunchEnvironment.JOB, job);
        return builder.start();
    }
}
