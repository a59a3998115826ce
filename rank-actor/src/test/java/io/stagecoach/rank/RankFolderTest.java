package io.stagecoach.rank;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.stream.Stream;

import io.stagecoach.protocol.host.PrivateDirectory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A rank that runs its own media driver (alone, or with explicit peers) does so in a private folder of its own.
 */
@Timeout(60)
class RankFolderTest
{
    @Test
    void shouldRunASingletonsDriverInAPrivateFolderAndDeleteItAtClose() throws IOException
    {
        final Path folder;
        try (Communicator world = Stagecoach.init(new StagecoachContext().rank(0).size(1)
            .jobId("solo-" + ProcessHandle.current().pid()).nodeName("node").useRendezvous(false)))
        {
            assertEquals(1, world.size());
            final List<Path> folders = foldersOfThisProcess();
            assertEquals(1, folders.size(), folders::toString);
            folder = folders.get(0);
            assertEquals("rwx------", PosixFilePermissions.toString(
                Files.getPosixFilePermissions(folder, LinkOption.NOFOLLOW_LINKS)));
            assertTrue(Files.exists(folder.resolve("aeron/cnc.dat")), "the driver runs in " + folder);
        }
        assertFalse(Files.exists(folder, LinkOption.NOFOLLOW_LINKS), folder + " is deleted at close");
    }

    @Test
    void shouldRefuseAConfiguredDriverDirectoryWhoseParentOthersMayWriteIn(@TempDir final Path folder)
        throws IOException
    {
        final Path open = Files.createDirectory(folder.resolve("open"));
        Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rwxrwxrwx"));
        final String directory = open.resolve("aeron").toString();
        final Throwable refused = assertThrows(Throwable.class, () -> Stagecoach.init(new StagecoachContext().rank(0)
            .size(1).jobId("solo-" + ProcessHandle.current().pid()).nodeName("node").useRendezvous(false)
            .aeronDirectoryName(directory)));
        final String message = messages(refused);
        assertTrue(message.contains("the media driver's directory " + directory + " (stagecoach.aeron.dir) must lie " +
            "in a private folder") && message.contains("its parent " + open + " is not") &&
            message.contains("its mode is rwxrwxrwx"), message);
    }

    private static String messages(final Throwable thrown)
    {
        final StringBuilder all = new StringBuilder();
        for (Throwable cause = thrown; cause != null; cause = cause.getCause())
        {
            all.append(cause).append('\n');
        }
        return all.toString();
    }

    private static List<Path> foldersOfThisProcess() throws IOException
    {
        final String user = System.getProperty("user.name").replaceAll("[^A-Za-z0-9._-]", "_");
        try (Stream<Path> entries = Files.list(PrivateDirectory.sharedMemoryBase()))
        {
            return entries.filter(entry -> entry.getFileName().toString().matches(
                PrivateDirectory.PREFIX + user + "-[0-9a-f]{16}")).filter(RankFolderTest::isOwnedByThisProcess)
                .toList();
        }
    }

    private static boolean isOwnedByThisProcess(final Path folder)
    {
        try
        {
            return Files.readString(folder.resolve(".owner")).contains("pid=" + ProcessHandle.current().pid() + "\n");
        }
        catch (final IOException ex)
        {
            return false;
        }
    }
}
