package io.stagecoach.rank.bootstrap;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.stagecoach.protocol.host.PrivateDirectory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

@Timeout(30)
class JobFolderTest
{
    @TempDir
    Path base;

    @Test
    void shouldCreateAPrivateFolderNobodyCanGuessAndDeleteItAtClose() throws IOException
    {
        final Path path;
        try (JobFolder folder = JobFolder.create())
        {
            path = folder.path();
            assertEquals(PrivateDirectory.sharedMemoryBase(), path.getParent());
            assertTrue(path.getFileName().toString().matches("stagecoach-" + JobFolder.user() + "-[0-9a-f]{16}"),
                path.toString());
            assertEquals("rwx------", mode(path));
            assertEquals(path.resolve("aeron").toString(), folder.aeronDirectory());
        }
        assertFalse(Files.exists(path, LinkOption.NOFOLLOW_LINKS));
    }

    @Test
    void shouldCreateADerivedFolderOnlyWhereNothingIsYet() throws IOException
    {
        final Path aeron = base.resolve("stagecoach-u-job/aeron");
        try (JobFolder folder = JobFolder.createFor(aeron))
        {
            assertEquals(aeron.getParent(), folder.path());
            assertEquals(aeron.toString(), folder.aeronDirectory());
            assertEquals("rwx------", mode(folder.path()));
            final String message = assertThrows(IllegalStateException.class, () -> JobFolder.createFor(aeron))
                .getMessage();
            assertTrue(message.contains(aeron.getParent() + ": something exists there already"), message);
        }
        assertFalse(Files.exists(aeron.getParent()));
    }

    @Test
    void shouldRefuseADerivedFolderPlantedAsALinkWithoutTouchingItsTarget() throws IOException
    {
        final Path victim = Files.createDirectory(base.resolve("victim"));
        Files.writeString(victim.resolve("precious"), "keep me");
        Files.createDirectory(victim.resolve("aeron"));
        final Path aeron = Files.createSymbolicLink(base.resolve("stagecoach-u-job"), victim).resolve("aeron");

        assertThrows(IllegalStateException.class, () -> JobFolder.createFor(aeron));
        final String message = assertThrows(IllegalStateException.class,
            () -> JobFolder.awaitFor(aeron, Duration.ofSeconds(1))).getMessage();

        assertTrue(message.endsWith(aeron.getParent() + " is not a private folder of uid " + uid() +
            ": it is a symbolic link"), message);
        assertEquals("keep me", Files.readString(victim.resolve("precious")));
    }

    @Test
    void shouldWaitForTheDerivedFolderAndLeaveItAtClose() throws Exception
    {
        final Path aeron = base.resolve("stagecoach-u-job/aeron");
        final CompletableFuture<JobFolder> creator = CompletableFuture.supplyAsync(() ->
        {
            sleep(200);
            return JobFolder.createFor(aeron);
        });

        try (JobFolder awaited = JobFolder.awaitFor(aeron, Duration.ofSeconds(10)))
        {
            assertEquals(aeron.toString(), awaited.aeronDirectory());
        }

        try (JobFolder created = creator.get(10, TimeUnit.SECONDS))
        {
            assertTrue(Files.isDirectory(created.path()), "the waiting rank leaves the folder to its creator");
        }
    }

    @Test
    void shouldRefuseAFolderOpenToOthersNamingIt() throws IOException
    {
        final Path folder = Files.createDirectory(base.resolve("stagecoach-u-job"));
        Files.setPosixFilePermissions(folder, PosixFilePermissions.fromString("rwxr-xr-x"));

        final String message = assertThrows(IllegalStateException.class,
            () -> JobFolder.awaitFor(folder.resolve("aeron"), Duration.ofSeconds(1))).getMessage();

        assertEquals(folder + " is not a private folder of uid " + uid() + ": its mode is rwxr-xr-x, not rwx------",
            message);
    }

    @Test
    void shouldRefuseAFolderOfAnotherUser() throws IOException
    {
        assumeTrue(uid() == 0, "only root can give a folder to another user");
        final Path folder = Files.createDirectory(base.resolve("stagecoach-u-job"),
            PosixFilePermissions.asFileAttribute(PrivateDirectory.DIRECTORY_MODE));
        Files.setAttribute(folder, "unix:uid", 65534, LinkOption.NOFOLLOW_LINKS);

        final String message = assertThrows(IllegalStateException.class,
            () -> JobFolder.awaitFor(folder.resolve("aeron"), Duration.ofSeconds(1))).getMessage();

        assertTrue(message.endsWith("it is owned by uid 65534"), message);
    }

    @Test
    void shouldGiveUpWaitingNamingTheFolder()
    {
        final Path aeron = base.resolve("stagecoach-u-never/aeron");

        final String message = assertThrows(IllegalStateException.class,
            () -> JobFolder.awaitFor(aeron, Duration.ofMillis(200))).getMessage();

        assertEquals("the job's folder " + aeron.getParent() + " did not appear within 200 ms (the node's first " +
            "rank creates it)", message);
    }

    private static String mode(final Path path) throws IOException
    {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(path, LinkOption.NOFOLLOW_LINKS));
    }

    private static int uid()
    {
        try
        {
            return (Integer)Files.getAttribute(Path.of("/proc/self"), "unix:uid");
        }
        catch (final IOException ex)
        {
            throw new AssertionError(ex);
        }
    }

    private static void sleep(final long millis)
    {
        try
        {
            Thread.sleep(millis);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }
}
