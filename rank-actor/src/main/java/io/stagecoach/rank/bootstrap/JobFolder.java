package io.stagecoach.rank.bootstrap;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import io.stagecoach.device.DeviceContext;
import io.stagecoach.protocol.host.PrivateDirectory;

/**
 * The private folder of a job on this node (a {@link PrivateDirectory}: mode 0700, this user's, with an owner
 * record): it holds the directory of the job's Aeron media driver, so that Aeron deletes and re-creates that
 * directory where nobody else can plant anything and nobody else can read a log buffer, and the ranks' emulated
 * devices. Whoever creates the folder first removes the folders that dead jobs of this user left, and deletes its
 * own at close, never following a link.
 */
public final class JobFolder implements AutoCloseable
{
    /** The name of the media driver's directory in a job's folder. */
    public static final String AERON = "aeron";

    private static final long POLL_NS = TimeUnit.MILLISECONDS.toNanos(10);

    private final Path path;
    private final Path aeronDirectory;
    private final boolean owned;

    private JobFolder(final Path path, final Path aeronDirectory, final boolean owned)
    {
        this.path = path;
        this.aeronDirectory = aeronDirectory;
        this.owned = owned;
    }

    /**
     * Creates a folder for a job under a name nobody can guess, {@code stagecoach-<user>-<64 random bits>}, in
     * {@link PrivateDirectory#sharedMemoryBase()}, after sweeping what dead jobs left there and in the temporary
     * folder.
     *
     * @return the folder, deleted at {@link #close()}.
     * @throws IllegalStateException when it cannot be created.
     */
    public static JobFolder create()
    {
        final Path base = PrivateDirectory.sharedMemoryBase();
        sweep(base);
        final Path path = PrivateDirectory.createExclusive(base, PrivateDirectory.PREFIX + user() + "-");
        return new JobFolder(path, path.resolve(AERON), true);
    }

    /**
     * Creates the folder of a media driver directory whose name every rank of the node derives alike (ranks of a
     * launcher that runs no driver): the first local rank does, after sweeping what dead jobs left beside it.
     *
     * @param aeronDirectory the driver's directory; its parent is the job's folder.
     * @return the folder, deleted at {@link #close()}.
     * @throws IllegalStateException naming the folder when anything exists there already.
     */
    public static JobFolder createFor(final Path aeronDirectory)
    {
        final Path path = aeronDirectory.toAbsolutePath().getParent();
        sweep(path.getParent());
        return new JobFolder(PrivateDirectory.createExclusive(path), aeronDirectory, true);
    }

    /**
     * Waits for the folder of a media driver directory that another rank creates ({@link #createFor(Path)}) and
     * checks that it is private to this user before it is used.
     *
     * @param aeronDirectory the driver's directory; its parent is the job's folder.
     * @param timeout        how long to wait for the folder to appear.
     * @return the folder, left in place at {@link #close()}.
     * @throws IllegalStateException naming the folder when it did not appear in time or is not private.
     */
    public static JobFolder awaitFor(final Path aeronDirectory, final Duration timeout)
    {
        final Path path = aeronDirectory.toAbsolutePath().getParent();
        final long deadlineNs = System.nanoTime() + timeout.toNanos();
        while (!Files.exists(path, LinkOption.NOFOLLOW_LINKS))
        {
            if (System.nanoTime() - deadlineNs >= 0)
            {
                throw new IllegalStateException("the job's folder " + path + " did not appear within " +
                    timeout.toMillis() + " ms (the node's first rank creates it)");
            }
            LockSupport.parkNanos(POLL_NS);
        }
        return new JobFolder(PrivateDirectory.checkPrivate(path), aeronDirectory, false);
    }

    /**
     * @return the folder.
     */
    public Path path()
    {
        return path;
    }

    /**
     * @return the directory of the job's media driver, inside the folder.
     */
    public String aeronDirectory()
    {
        return aeronDirectory.toString();
    }

    /**
     * @return the folder, when its file system has room for emulated devices ({@link
     * DeviceContext#MIN_SHARED_MEMORY_BYTES}); otherwise null, and each rank takes a private folder of its own
     * elsewhere.
     */
    public Path emulatedDeviceDirectory()
    {
        try
        {
            return Files.getFileStore(path).getUsableSpace() >= DeviceContext.MIN_SHARED_MEMORY_BYTES ? path : null;
        }
        catch (final IOException ex)
        {
            return null;
        }
    }

    /**
     * Deletes the folder and everything in it when this process created it; never follows a link.
     */
    public void close()
    {
        if (owned)
        {
            PrivateDirectory.deleteTree(path);
        }
    }

    public String toString()
    {
        return "JobFolder{" + path + (owned ? ", owned" : "") + "}";
    }

    private static void sweep(final Path base)
    {
        PrivateDirectory.sweep(base);
        final Path temporary = Path.of(System.getProperty("java.io.tmpdir"));
        if (!temporary.equals(base))
        {
            PrivateDirectory.sweep(temporary);
        }
    }

    static String user()
    {
        return LaunchEnvironment.sanitise(System.getProperty("user.name", "user"));
    }
}
