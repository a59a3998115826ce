package io.stagecoach.device;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Where the emulated devices keep their memory: a private folder of the process (0700, files 0600) in the configured
 * folder, which a later process sweeps when the first one was killed.
 */
@Timeout(60)
class EmulatedFilesTest
{
    @TempDir
    Path directory;

    @Test
    void shouldKeepTheDevicesFilesModeSixHundredInAPrivateFolderOfTheProcess() throws IOException
    {
        try (DeviceRuntime runtime = open(8L << 20))
        {
            assertEquals(2, runtime.deviceCount());
            final List<Path> folders = list(directory);
            assertEquals(1, folders.size(), folders::toString);
            final Path folder = folders.get(0);
            assertTrue(folder.getFileName().toString().matches("stagecoach-emu-[0-9a-f]{16}"), folder.toString());
            assertEquals("rwx------", mode(folder));
            assertTrue(Files.readString(folder.resolve(".owner")).contains("pid=" + ProcessHandle.current().pid()));
            final List<Path> files = list(folder);
            assertEquals(List.of(folder.resolve("device-0"), folder.resolve("device-1")), files);
            for (final Path file : files)
            {
                assertEquals("rw-------", mode(file), file::toString);
            }
        }
    }

    @Test
    void shouldSweepTheFolderOfAKilledProcess() throws Exception
    {
        final Process child = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "--add-opens", "java.base/jdk.internal.misc=ALL-UNNAMED", "--add-opens", "java.base/sun.nio.ch=ALL-UNNAMED",
            "-cp", System.getProperty("java.class.path"), EmulatedChild.class.getName(), directory.toString())
            .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        final Path left;
        try (BufferedReader output = new BufferedReader(
            new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8)))
        {
            assertEquals("ready", output.readLine());
            left = list(directory).get(0);
        }
        finally
        {
            child.destroyForcibly();
            assertTrue(child.waitFor(10, TimeUnit.SECONDS), "waited 10 s for the killed child to end");
        }
        assertTrue(Files.exists(left.resolve("device-0")), "the killed child left " + left);

        try (DeviceRuntime runtime = open(4L << 20))
        {
            assertEquals(2, runtime.deviceCount());
            assertFalse(Files.exists(left), left + " is still there");
            assertEquals(1, list(directory).size());
        }
    }

    private DeviceRuntime open(final long memoryBytes)
    {
        return DeviceRuntime.open(new DeviceContext().kind(DeviceKind.EMULATED).emulatedDirectory(directory)
            .emulatedDeviceCount(2).emulatedMemoryBytes(memoryBytes));
    }

    private static String mode(final Path path) throws IOException
    {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(path));
    }

    private static List<Path> list(final Path folder) throws IOException
    {
        try (Stream<Path> entries = Files.list(folder))
        {
            return entries.filter(entry -> !entry.getFileName().toString().startsWith(".")).sorted().toList();
        }
    }
}
