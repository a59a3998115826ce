package io.stagecoach.protocol.host;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class LeftoverSweepTest
{
    @TempDir
    Path parent;

    @Test
    void shouldRemoveTheFolderOfAnOwnerThatIsGone() throws Exception
    {
        final Path folder = folderOf(deadProcess(), "stagecoach-dead-");
        Files.createDirectories(folder.resolve("aeron/publications"));
        Files.writeString(folder.resolve("aeron/publications/1.logbuffer"), "payload");

        assertEquals(1, PrivateDirectory.sweep(parent));

        assertFalse(Files.exists(folder, LinkOption.NOFOLLOW_LINKS));
    }

    @Test
    void shouldKeepTheFolderOfALiveOwner()
    {
        final Path folder = PrivateDirectory.createExclusive(parent, "stagecoach-live-");

        assertEquals(0, PrivateDirectory.sweep(parent));

        assertTrue(Files.exists(folder.resolve(OwnerRecord.FILE_NAME)));
    }

    @Test
    void shouldRemoveTheFolderOfAnOwnerWhosePidNowBelongsToAnotherProcess() throws IOException
    {
        final OwnerRecord self = OwnerRecord.ofCurrentProcess();
        final Path folder = folderOf(new OwnerRecord(self.pid(), startTicksOfSelf() - 1, bootId(), pidNamespace()),
            "stagecoach-reused-");

        assertEquals(1, PrivateDirectory.sweep(parent));

        assertFalse(Files.exists(folder, LinkOption.NOFOLLOW_LINKS));
    }

    @Test
    void shouldRemoveTheFolderOfAnOwnerFromAnotherBoot() throws IOException
    {
        final Path folder = folderOf(new OwnerRecord(ProcessHandle.current().pid(), startTicksOfSelf(),
            "00000000-0000-0000-0000-000000000000", pidNamespace()), "stagecoach-boot-");

        assertEquals(1, PrivateDirectory.sweep(parent));

        assertFalse(Files.exists(folder, LinkOption.NOFOLLOW_LINKS));
    }

    @Test
    void shouldKeepAFolderWithoutAnOwnerRecordOrWithoutThePrefix() throws Exception
    {
        final Path unrecorded = Files.createDirectory(parent.resolve("stagecoach-unrecorded"));
        final Path otherName = folderOf(deadProcess(), "other-");

        assertEquals(0, PrivateDirectory.sweep(parent));

        assertTrue(Files.isDirectory(unrecorded));
        assertTrue(Files.isDirectory(otherName));
    }

    @Test
    void shouldNotFollowASymbolicLinkNamedLikeALeftover(@TempDir final Path elsewhere) throws Exception
    {
        final Path target = PrivateDirectory.createExclusive(elsewhere, "stagecoach-target-");
        Files.delete(target.resolve(OwnerRecord.FILE_NAME));
        new OwnerRecord(deadProcess(), 1, bootId(), pidNamespace()).write(target);
        final Path link = Files.createSymbolicLink(parent.resolve("stagecoach-link"), target);

        assertEquals(0, PrivateDirectory.sweep(parent));

        assertTrue(Files.isSymbolicLink(link));
        assertTrue(Files.exists(target.resolve(OwnerRecord.FILE_NAME)));
    }

    @Test
    void shouldKeepTheFolderOfAnotherUser() throws Exception
    {
        OtherUser.assumeAvailable();
        final Path folder = folderOf(deadProcess(), "stagecoach-foreign-");
        OtherUser.chown(folder);

        assertEquals(0, PrivateDirectory.sweep(parent));

        assertTrue(Files.exists(folder.resolve(OwnerRecord.FILE_NAME)));
    }

    private Path folderOf(final long deadPid, final String prefix) throws IOException
    {
        return folderOf(new OwnerRecord(deadPid, 1, bootId(), pidNamespace()), prefix);
    }

    private Path folderOf(final OwnerRecord owner, final String prefix) throws IOException
    {
        final Path folder = PrivateDirectory.createExclusive(parent, prefix);
        Files.delete(folder.resolve(OwnerRecord.FILE_NAME));
        owner.write(folder);
        return folder;
    }

    private static long deadProcess() throws IOException, InterruptedException
    {
        final Process process = new ProcessBuilder("true").start();
        assertTrue(process.waitFor(10, TimeUnit.SECONDS), "waited 10 s for true to exit");
        return process.pid();
    }

    private static long startTicksOfSelf()
    {
        return OwnerRecord.startTicks(ProcessHandle.current().pid());
    }

    private static String bootId() throws IOException
    {
        return Files.readString(Path.of("/proc/sys/kernel/random/boot_id")).trim();
    }

    private static String pidNamespace() throws IOException
    {
        return Files.readSymbolicLink(Path.of("/proc/self/ns/pid")).toString();
    }
}
