package io.stagecoach.pipeline.transport.aeron;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

import io.stagecoach.protocol.host.PrivateDirectory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Timeout(30)
class EmbeddedMediaDriverTest
{
    @TempDir
    Path root;

    @Test
    void shouldRefuseADirectoryOthersCouldPlantALinkAtAndDeleteNothing() throws IOException
    {
        final Path shared = Files.createDirectory(root.resolve("shared"));
        Files.setPosixFilePermissions(shared, PosixFilePermissions.fromString("rwxrwxrwx"));
        final Path victim = Files.createDirectory(root.resolve("victim"));
        Files.writeString(victim.resolve("precious"), "keep me");
        final Path planted = Files.createSymbolicLink(shared.resolve("aeron"), victim);

        final String message = assertThrows(IllegalArgumentException.class,
            () -> EmbeddedMediaDriver.launch(planted.toString())).getMessage();

        assertTrue(message.contains("but its parent " + shared + " is not: its mode is rwxrwxrwx"), message);
        assertEquals("keep me", Files.readString(victim.resolve("precious")));
    }

    @Test
    void shouldRunAndDeleteItsDirectoryInsideAPrivateFolder()
    {
        final Path folder = PrivateDirectory.createExclusive(root, "stagecoach-test-");
        final Path directory = folder.resolve("aeron");
        try (EmbeddedMediaDriver driver = EmbeddedMediaDriver.launch(directory.toString()))
        {
            assertTrue(Files.exists(Path.of(driver.aeronDirectoryName(), "cnc.dat")));
        }
        assertFalse(Files.exists(directory));
    }
}
