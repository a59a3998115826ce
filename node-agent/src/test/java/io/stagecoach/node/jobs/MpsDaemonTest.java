package io.stagecoach.node.jobs;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The MPS daemon's start and quit, with a control command that records how it was called in place of
 * {@code nvidia-cuda-mps-control} (no GPU here).
 */
final class MpsDaemonTest
{
    @Test
    void shouldStartTheDaemonWithPrivateFoldersAndQuitIt(@TempDir final Path temp) throws Exception
    {
        final Path calls = temp.resolve("calls");
        final Path control = script(temp, "#!/bin/sh\necho \"args=$* pipe=$CUDA_MPS_PIPE_DIRECTORY " +
            "log=$CUDA_MPS_LOG_DIRECTORY stdin=$(cat)\" >> " + calls + "\n");
        final Path parent = Files.createDirectory(temp.resolve("state"));
        final Path folder;
        try (MpsDaemon daemon = MpsDaemon.start(control.toString(), parent, "job-1"))
        {
            final Path pipe = Path.of(daemon.environment().get("CUDA_MPS_PIPE_DIRECTORY"));
            folder = pipe.getParent();
            assertTrue(Files.isDirectory(pipe) && folder.getParent().equals(parent), pipe.toString());
            assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(folder)));
            assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(pipe)));
            assertEquals(List.of("args=-d pipe=" + pipe + " log=" + folder.resolve("log") + " stdin="),
                Files.readAllLines(calls));
        }
        assertEquals("args= pipe=" + folder.resolve("pipe") + " log=" + folder.resolve("log") + " stdin=quit",
            Files.readAllLines(calls).get(1));
        assertFalse(Files.exists(folder));
    }

    @Test
    void shouldNameAControlCommandThatFailsAndLeaveNothing(@TempDir final Path temp) throws Exception
    {
        final Path control = script(temp, "#!/bin/sh\nexit 3\n");
        final Path parent = Files.createDirectory(temp.resolve("state"));
        final String message = assertThrows(java.io.IOException.class,
            () -> MpsDaemon.start(control.toString(), parent, "job-2")).getMessage();
        assertEquals(control + " -d failed with exit status 3", message);
        try (var left = Files.list(parent))
        {
            assertEquals(0, left.count());
        }
    }

    private static Path script(final Path temp, final String text) throws Exception
    {
        final Path script = temp.resolve("mps-control");
        Files.writeString(script, text);
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwx------"));
        return script;
    }
}
