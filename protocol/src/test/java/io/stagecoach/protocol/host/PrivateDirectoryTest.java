package io.stagecoach.protocol.host;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PrivateDirectoryTest
{
    @TempDir
    Path parent;

    @Test
    void shouldCreateAFolderWithAnUnguessableNameModeSevenHundredAndAnOwnerRecord() throws IOException
    {
        final Path first = PrivateDirectory.createExclusive(parent, "stagecoach-test-");
        final Path second = PrivateDirectory.createExclusive(parent, "stagecoach-test-");

        assertNotEquals(first, second);
        assertTrue(first.getFileName().toString().matches("stagecoach-test-[0-9a-f]{16}"), first.toString());
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(first)));
        assertEquals(Uid.current(), Uid.of(first));
        final OwnerRecord owner = OwnerRecord.read(first);
        assertNotNull(owner);
        assertEquals(ProcessHandle.current().pid(), owner.pid());
        assertTrue(owner.isAlive());
        assertEquals("rw-------", PosixFilePermissions.toString(
            Files.getPosixFilePermissions(first.resolve(OwnerRecord.FILE_NAME))));
    }

    @Test
    void shouldRefuseToCreateAFolderWhereASymbolicLinkOrAFolderIsAlready() throws IOException
    {
        final Path victim = Files.createDirectory(parent.resolve("victim"));
        final Path link = Files.createSymbolicLink(parent.resolve("stagecoach-planted"), victim);

        final String message = assertThrows(IllegalStateException.class,
            () -> PrivateDirectory.createExclusive(link)).getMessage();
        assertTrue(message.contains(link + ": something exists there already"), message);
        assertThrows(IllegalStateException.class, () -> PrivateDirectory.createExclusive(victim));
        assertFalse(Files.exists(victim.resolve(OwnerRecord.FILE_NAME)));
    }

    @Test
    void shouldDeleteATreeWithoutFollowingTheSymbolicLinksInIt() throws IOException
    {
        final Path victim = Files.createDirectory(parent.resolve("victim"));
        final Path victimFile = Files.writeString(victim.resolve("precious"), "keep me");
        final Path folder = PrivateDirectory.createExclusive(parent, "stagecoach-test-");
        final Path nested = Files.createDirectories(folder.resolve("a/b"));
        Files.writeString(nested.resolve("data"), "x");
        Files.createSymbolicLink(folder.resolve("to-folder"), victim);
        Files.createSymbolicLink(nested.resolve("to-file"), victimFile);

        PrivateDirectory.deleteTree(folder);

        assertFalse(Files.exists(folder, LinkOption.NOFOLLOW_LINKS));
        assertEquals("keep me", Files.readString(victimFile));
    }

    @Test
    void shouldRefuseToDeleteASymbolicLinkToAFolder() throws IOException
    {
        final Path victim = PrivateDirectory.createExclusive(parent, "stagecoach-victim-");
        final Path link = Files.createSymbolicLink(parent.resolve("stagecoach-link"), victim);

        final String message = assertThrows(IllegalStateException.class, () -> PrivateDirectory.deleteTree(link))
            .getMessage();

        assertTrue(message.contains("a symbolic link is never followed"), message);
        assertTrue(Files.exists(victim.resolve(OwnerRecord.FILE_NAME)));
    }

    @Test
    void shouldTakeAFolderThatIsGoneAsDeleted()
    {
        PrivateDirectory.deleteTree(parent.resolve("never-there"));
    }

    @Test
    void shouldNameWhatMakesAFolderNotPrivate() throws IOException
    {
        final Path open = Files.createDirectory(parent.resolve("open"),
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-xr-x")));
        Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rwxr-xr-x"));
        final Path link = Files.createSymbolicLink(parent.resolve("link"),
            PrivateDirectory.createExclusive(parent, "stagecoach-test-"));
        final Path file = Files.createFile(parent.resolve("file"));

        assertEquals(open + " is not a private folder of uid " + Uid.current() + ": its mode is rwxr-xr-x, not " +
            "rwx------", assertThrows(IllegalStateException.class, () -> PrivateDirectory.checkPrivate(open))
            .getMessage());
        assertEquals("it is a symbolic link", PrivateDirectory.problemOf(link));
        assertEquals("it is not a directory", PrivateDirectory.problemOf(file));
        assertTrue(PrivateDirectory.problemOf(parent.resolve("missing")).startsWith("it cannot be read"));
    }

    @Test
    void shouldRefuseAFolderOfAnotherUserAndNotDeleteIt() throws IOException
    {
        OtherUser.assumeAvailable();
        final Path folder = PrivateDirectory.createExclusive(parent, "stagecoach-test-");
        OtherUser.chown(folder);

        assertEquals("it is owned by uid " + OtherUser.UID, PrivateDirectory.problemOf(folder));
        final String message = assertThrows(IllegalStateException.class, () -> PrivateDirectory.deleteTree(folder))
            .getMessage();
        assertTrue(message.contains("owned by uid " + OtherUser.UID), message);
        assertTrue(Files.exists(folder.resolve(OwnerRecord.FILE_NAME)));
    }

    @Test
    void shouldCreateFilesModeSixHundredAndNeverThroughALink() throws IOException
    {
        final Path folder = PrivateDirectory.createExclusive(parent, "stagecoach-test-");
        try (FileChannel channel = PrivateDirectory.createFile(folder.resolve("arena")))
        {
            assertEquals(0, channel.size());
        }
        assertEquals("rw-------", PosixFilePermissions.toString(
            Files.getPosixFilePermissions(folder.resolve("arena"))));
        final Path target = parent.resolve("target");
        Files.createSymbolicLink(folder.resolve("link"), target);
        assertThrows(IOException.class, () -> PrivateDirectory.createFile(folder.resolve("link")));
        assertFalse(Files.exists(target));
    }
}
