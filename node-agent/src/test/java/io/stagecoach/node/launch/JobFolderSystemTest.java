package io.stagecoach.node.launch;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import io.stagecoach.protocol.host.PrivateDirectory;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The job's folder with real rank JVMs: nobody else can plant anything in it, see into it or make the launcher
 * delete something through a guessable name, and a later launcher removes what a killed one left.
 */
@Tag("system")
@Timeout(120)
class JobFolderSystemTest
{
    private static final Pattern ENTRY = Pattern.compile("ENTRY (\\S+) (\\S+)");
    private static final String USER = System.getProperty("user.name").replaceAll("[^A-Za-z0-9._-]", "_");

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    @Test
    void shouldDeleteNothingThroughLinksPlantedAtEveryNameTheJobFolderOnceHad(@TempDir final Path victim)
        throws IOException
    {
        final Path precious = Files.writeString(victim.resolve("precious"), "keep me");
        final List<Path> links = new ArrayList<>();
        try
        {
            for (int suffix = 0x1000; suffix < 0x10000; suffix++)
            {
                links.add(Files.createSymbolicLink(PrivateDirectory.sharedMemoryBase().resolve(
                    "stagecoach-" + USER + "-" + ProcessHandle.current().pid() + "-" + Integer.toHexString(suffix)),
                    victim));
            }

            final int status = Launcher.run(context(2, ExchangeRank.class));

            assertEquals(0, status, () -> text(out) + text(err));
            assertEquals("keep me", Files.readString(precious));
            assertTrue(links.stream().allMatch(Files::isSymbolicLink), "the planted links are left alone");
        }
        finally
        {
            for (final Path link : links)
            {
                Files.deleteIfExists(link);
            }
        }
    }

    @Test
    void shouldKeepTheJobFolderAndEveryFileOfTheRuntimeToItsUser()
    {
        final String payload = "payload-" + UUID.randomUUID();

        final int status = Launcher.run(context(2, FolderRank.class).programArguments(List.of(payload)));

        final String stdout = text(out);
        assertEquals(0, status, () -> stdout + text(err));
        final Matcher folderLine = Pattern.compile("FOLDER (\\S+)").matcher(stdout);
        assertTrue(folderLine.find(), stdout);
        final Path folder = Path.of(folderLine.group(1));
        assertTrue(folder.getFileName().toString().matches("stagecoach-" + USER + "-[0-9a-f]{16}"), stdout);
        final Matcher entry = ENTRY.matcher(stdout);
        int runtimeFiles = 0;
        while (entry.find())
        {
            final Path path = Path.of(entry.group(2));
            if (path.equals(folder) || path.getFileName().toString().startsWith("stagecoach-emu-"))
            {
                assertEquals("rwx------", entry.group(1), entry.group());
            }
            else if (isRuntimeFile(path))
            {
                assertEquals("rw-------", entry.group(1), entry.group());
                runtimeFiles++;
            }
        }
        assertTrue(runtimeFiles >= 5, "arenas, emulated devices and owner records listed: " + stdout);
        assertTrue(stdout.contains("PAYLOAD IN "), stdout);
        assertFalse(Files.exists(folder, LinkOption.NOFOLLOW_LINKS), folder + " is deleted at the end of the job");
    }

    @Test
    void shouldKeepAPayloadInALogBufferFromAnotherUser()
    {
        assumeTrue("root".equals(System.getProperty("user.name")) && Files.isExecutable(Path.of("/usr/sbin/runuser")),
            "needs root and runuser to act as user nobody");
        final String payload = "payload-" + UUID.randomUUID();

        final int status = Launcher.run(context(2, FolderRank.class).programArguments(List.of(payload)));

        final String stdout = text(out);
        assertEquals(0, status, () -> stdout + text(err));
        assertTrue(Pattern.compile("PAYLOAD IN \\S+/aeron/\\S+\\.logbuffer").matcher(stdout).find(), stdout);
        final Matcher nobody = Pattern.compile("NOBODY (\\d+) (.*)").matcher(stdout);
        assertTrue(nobody.find(), stdout);
        assertTrue(!"0".equals(nobody.group(1)) && nobody.group(2).contains("Permission denied"), nobody.group());
    }

    @Test
    void shouldRemoveTheFolderOfAKilledLauncher() throws Exception
    {
        final Process launcher = startLauncher();
        final List<ProcessHandle> ranks = new ArrayList<>();
        try
        {
            final Path left = awaitFolderOf(launcher.pid());
            launcher.descendants().forEach(ranks::add);
            launcher.destroyForcibly();
            assertTrue(launcher.waitFor(10, TimeUnit.SECONDS), "waited 10 s for the killed launcher to end");
            ranks.forEach(ProcessHandle::destroyForcibly);
            assertTrue(Files.isDirectory(left), "the killed launcher left " + left);

            final int status = Launcher.run(context(2, ExchangeRank.class));

            assertEquals(0, status, () -> text(out) + text(err));
            assertFalse(Files.exists(left, LinkOption.NOFOLLOW_LINKS), left + " is still there");
        }
        finally
        {
            launcher.destroyForcibly();
            ranks.forEach(ProcessHandle::destroyForcibly);
        }
    }

    private static boolean isRuntimeFile(final Path path)
    {
        final String name = path.getFileName().toString();
        return name.equals(".owner") || name.startsWith("stagecoach-arena-") || name.startsWith("device-");
    }

    private static Process startLauncher() throws IOException
    {
        final List<String> command = new ArrayList<>(List.of(
            Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        command.addAll(LaunchContext.DEFAULT_JVM_OPTIONS);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"),
            "io.stagecoach.node.cli.StagecoachCommand", "run", "-np", "2", "-J-XX:TieredStopAtLevel=1",
            SleepingRank.class.getName()));
        return new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .start();
    }

    private static Path awaitFolderOf(final long pid) throws IOException, InterruptedException
    {
        final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() - deadlineNs < 0)
        {
            try (Stream<Path> entries = Files.list(PrivateDirectory.sharedMemoryBase()))
            {
                final List<Path> folders = entries.filter(entry -> ownedBy(entry, pid)).toList();
                if (!folders.isEmpty())
                {
                    return folders.get(0);
                }
            }
            Thread.sleep(50);
        }
        throw new AssertionError("waited 30 s for a job folder of launcher " + pid);
    }

    private static boolean ownedBy(final Path folder, final long pid)
    {
        try
        {
            return folder.getFileName().toString().startsWith("stagecoach-" + USER + "-") &&
                Files.readString(folder.resolve(".owner")).contains("pid=" + pid + "\n");
        }
        catch (final IOException ex)
        {
            return false;
        }
    }

    private LaunchContext context(final int size, final Class<?> program)
    {
        return new LaunchContext()
            .size(size)
            .program(program.getName())
            .jvmOptions(
                List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Dagrona.disable.bounds.checks=false"))
            .output(
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    private static String text(final ByteArrayOutputStream bytes)
    {
        return bytes.toString(StandardCharsets.UTF_8);
    }
}
