package io.stagecoach.node.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What {@code bin/stagecoach} hands the Java runtime it starts, seen through a stand-in bundle whose {@code java}
 * reports it.
 */
@Timeout(30)
class LauncherScriptTest
{
    private static final Path SCRIPT = Path.of(System.getProperty("user.dir")).resolveSibling("bin")
        .resolve("stagecoach");

    @TempDir
    Path bundle;

    @Test
    void shouldStartJavaWithAUmaskThatKeepsTheJobsFilesToItsUser() throws IOException, InterruptedException
    {
        Files.createDirectories(bundle.resolve("lib"));
        final Path java = Files.createDirectories(bundle.resolve("runtime/bin")).resolve("java");
        Files.writeString(java, "#!/bin/sh\numask\n");
        Files.setPosixFilePermissions(java, PosixFilePermissions.fromString("rwx------"));
        final ProcessBuilder builder = new ProcessBuilder("sh", "-c", "umask 022 && exec bash \"$0\" run -np 1 x",
            SCRIPT.toString()).redirectErrorStream(true);
        builder.environment().put("STAGECOACH_HOME", bundle.toString());

        final Process process = builder.start();
        final String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);

        assertTrue(process.waitFor(20, TimeUnit.SECONDS), "waited 20 s for " + SCRIPT);
        assertEquals("0077\n", output);
    }

    @Test
    void shouldStartTheJobCommandsQuickAndLeaveTheAgentTheJvmsDefaultsWithTheUsersOptionsLast() throws Exception
    {
        Files.createDirectories(bundle.resolve("lib"));
        final Path java = Files.createDirectories(bundle.resolve("runtime/bin")).resolve("java");
        Files.writeString(java, "#!/bin/sh\necho \"$@\"\n");
        Files.setPosixFilePermissions(java, PosixFilePermissions.fromString("rwx------"));
        for (final String command : new String[] { "run", "ps", "kill" })
        {
            final String line = launch(command, "-XX:TieredStopAtLevel=4");
            assertTrue(line.matches(".* -XX:TieredStopAtLevel=1 -XX:\\+UseSerialGC -XX:TieredStopAtLevel=4 -cp .*"),
                command + ": " + line);
        }
        for (final String command : new String[] { "agent", "tune" })
        {
            final String line = launch(command, "");
            assertTrue(!line.contains("TieredStopAtLevel") && !line.contains("UseSerialGC"), command + ": " + line);
        }
    }

    private String launch(final String command, final String userOptions) throws Exception
    {
        final ProcessBuilder builder = new ProcessBuilder("bash", SCRIPT.toString(), command).redirectErrorStream(true);
        builder.environment().put("STAGECOACH_HOME", bundle.toString());
        builder.environment().put("STAGECOACH_JAVA_OPTS", userOptions);
        final Process process = builder.start();
        final String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(20, TimeUnit.SECONDS), "waited 20 s for " + SCRIPT);
        return output.strip();
    }
}
