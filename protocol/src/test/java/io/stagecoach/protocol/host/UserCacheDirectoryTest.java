package io.stagecoach.protocol.host;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class UserCacheDirectoryTest
{
    @TempDir
    Path root;

    @Test
    void shouldListTheXdgCacheThenTheHomeCacheThenAPerUserFolderInTheTemporaryFolder()
    {
        assertEquals(List.of(Path.of("/x/cache/stagecoach"), Path.of("/home/u/.cache/stagecoach"),
            Path.of("/t/stagecoach-cache-" + Uid.current())),
            UserCacheDirectory.candidates(Map.of("XDG_CACHE_HOME", "/x/cache"), "/home/u", "/t"));
        assertEquals(List.of(Path.of("/home/u/.cache/stagecoach"), Path.of("/t/stagecoach-cache-" + Uid.current())),
            UserCacheDirectory.candidates(Map.of("XDG_CACHE_HOME", "relative"), "/home/u", "/t"));
    }

    @Test
    void shouldCreateTheFirstCandidateModeSevenHundred() throws IOException
    {
        Files.createDirectory(root.resolve("home"));

        final Path chosen = UserCacheDirectory.resolve(List.of(root.resolve("home/.cache/stagecoach")));

        assertEquals(root.resolve("home/.cache/stagecoach"), chosen);
        assertNull(PrivateDirectory.problemOf(chosen));
    }

    @Test
    void shouldNeverCreateAHomeFolderThatIsMissing()
    {
        final Path home = root.resolve("nonexistent");
        final Path good = root.resolve("good");

        assertEquals(good, UserCacheDirectory.resolve(List.of(home.resolve(".cache/stagecoach"), good)));

        assertFalse(Files.exists(home));
    }

    @Test
    void shouldPassOverACacheFolderThatIsASymbolicLinkOrOpenToOthers() throws IOException
    {
        final Path target = Files.createDirectory(root.resolve("target"),
            PosixFilePermissions.asFileAttribute(PrivateDirectory.DIRECTORY_MODE));
        final Path link = Files.createSymbolicLink(root.resolve("link"), target);
        final Path open = Files.createDirectory(root.resolve("open"));
        Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rwxrwxrwx"));
        final Path good = root.resolve("good");

        assertEquals(good, UserCacheDirectory.resolve(List.of(link, open, good)));
    }

    @Test
    void shouldPassOverACacheFolderOfAnotherUser() throws IOException
    {
        OtherUser.assumeAvailable();
        final Path foreign = Files.createDirectory(root.resolve("foreign"),
            PosixFilePermissions.asFileAttribute(PrivateDirectory.DIRECTORY_MODE));
        OtherUser.chown(foreign);
        final Path good = root.resolve("good");

        assertEquals(good, UserCacheDirectory.resolve(List.of(foreign, good)));
    }

    @Test
    void shouldFallBackToAFreshPrivateFolderWhenNoCandidateIsPrivate() throws IOException
    {
        final Path open = Files.createDirectory(root.resolve("open"));
        Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rwxr-xr-x"));

        final Path fresh = UserCacheDirectory.resolve(List.of(open));
        try
        {
            assertEquals(Path.of(System.getProperty("java.io.tmpdir")), fresh.getParent());
            assertTrue(fresh.getFileName().toString().matches("stagecoach-native-[0-9a-f]{16}"), fresh.toString());
            assertNull(PrivateDirectory.problemOf(fresh));
        }
        finally
        {
            PrivateDirectory.deleteTree(fresh);
        }
    }
}
