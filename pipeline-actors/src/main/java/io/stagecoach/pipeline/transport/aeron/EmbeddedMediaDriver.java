package io.stagecoach.pipeline.transport.aeron;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import io.aeron.driver.MediaDriver;
import io.aeron.driver.ThreadingMode;
import io.stagecoach.protocol.host.PrivateDirectory;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A media driver inside this process, with its own directory inside a private folder, for single-process use and
 * tests. Tuned for small machines: one shared agent thread that backs off to short parks when idle. Its liveness
 * timeouts outlast pauses that are normal in a JVM (a garbage collection, a safepoint behind a large allocation, a
 * page-fault storm, a SIGSTOP of a few seconds): a rank that dies is detected from facts instead (its process exited,
 * its stream ended), not from a missed keep-alive.
 */
public final class EmbeddedMediaDriver implements AutoCloseable
{
    /**
     * How long a client may go without a keep-alive before the driver drops its publications; clients of
     * {@link AeronTransport} send one every {@link AeronTransport#KEEP_ALIVE_INTERVAL_NS}. It is also the longest a
     * client's conductor may go between duty cycles before the client closes itself, so it must outlast any pause
     * of the client's JVM: twice Aeron's default, so that a 10 s pause leaves the job running.
     */
    public static final long CLIENT_LIVENESS_TIMEOUT_NS = TimeUnit.SECONDS.toNanos(20);
    /** How long a network image may go without data or heartbeat before it is unavailable (twice Aeron's default). */
    public static final long IMAGE_LIVENESS_TIMEOUT_NS = TimeUnit.SECONDS.toNanos(20);
    /**
     * How long a publication may stay blocked by a producer that claimed space and stopped before the driver unblocks
     * it: longer than {@link #CLIENT_LIVENESS_TIMEOUT_NS}, as Aeron requires.
     */
    public static final long PUBLICATION_UNBLOCK_TIMEOUT_NS = TimeUnit.SECONDS.toNanos(30);

    private static final Logger LOG = LoggerFactory.getLogger(EmbeddedMediaDriver.class);

    private final MediaDriver driver;

    private EmbeddedMediaDriver(final MediaDriver driver)
    {
        this.driver = driver;
    }

    /**
     * Launches a driver in a fresh directory, deleted on close.
     *
     * @param directoryName the driver's directory, inside a private folder of this user; an existing one is deleted
     *                      first.
     * @return the running driver.
     * @throws IllegalArgumentException when the directory's parent is not a private folder of this user.
     */
    public static EmbeddedMediaDriver launch(final String directoryName)
    {
        return launch(directoryName, CLIENT_LIVENESS_TIMEOUT_NS);
    }

    /**
     * Launches a driver in a fresh directory, deleted on close, with another client liveness timeout (tests of what
     * happens when a client stops for longer than the default).
     *
     * @param directoryName           the driver's directory, inside a private folder of this user; an existing one
     *                                is deleted first.
     * @param clientLivenessTimeoutNs how long a client may go without a keep-alive; also the longest its conductor
     *                                may go between duty cycles before the client closes itself.
     * @return the running driver.
     * @throws IllegalArgumentException when the directory's parent is not a private folder of this user.
     */
    public static EmbeddedMediaDriver launch(final String directoryName, final long clientLivenessTimeoutNs)
    {
        checkParentIsPrivate(directoryName, null);
        final MediaDriver.Context context = new MediaDriver.Context()
            .aeronDirectoryName(directoryName)
            .dirDeleteOnStart(true)
            .dirDeleteOnShutdown(true)
            .threadingMode(ThreadingMode.SHARED)
            .sharedThreadFactory(DaemonThreads.factory("stagecoach-media-driver"))
            .asyncExecutorThreadFactory(DaemonThreads.factory("stagecoach-media-driver-async"))
            .sharedIdleStrategy(new BackoffIdleStrategy(64, 16, TimeUnit.MICROSECONDS.toNanos(1),
                TimeUnit.MILLISECONDS.toNanos(1)))
            .clientLivenessTimeoutNs(clientLivenessTimeoutNs)
            .imageLivenessTimeoutNs(IMAGE_LIVENESS_TIMEOUT_NS)
            .publicationUnblockTimeoutNs(
                Math.max(PUBLICATION_UNBLOCK_TIMEOUT_NS, clientLivenessTimeoutNs + TimeUnit.SECONDS.toNanos(10)))
            .publicationLingerTimeoutNs(TimeUnit.MILLISECONDS.toNanos(200))
            .timerIntervalNs(TimeUnit.MILLISECONDS.toNanos(10))
            .termBufferSparseFile(true)
            .warnIfDirectoryExists(false);
        final MediaDriver driver = MediaDriver.launch(context);
        LOG.info("embedded media driver in {}", driver.aeronDirectoryName());
        return new EmbeddedMediaDriver(driver);
    }

    /**
     * Aeron deletes the directory at start and at close, following symbolic links, and creates its files as the umask
     * allows, and ranks keep their shared arenas there: only a folder nobody else can enter keeps others from planting
     * a link there or reading a log buffer or an arena.
     *
     * @param directoryName a media driver's directory.
     * @param setting       the setting that named it, to name too; null for none.
     * @throws IllegalArgumentException when its parent is not a private folder of this user.
     */
    public static void checkParentIsPrivate(final String directoryName, final String setting)
    {
        final Path parent = Path.of(directoryName).toAbsolutePath().getParent();
        final String problem = null == parent ? "it has none" : PrivateDirectory.problemOf(parent);
        if (null != problem)
        {
            throw new IllegalArgumentException("the media driver's directory " + directoryName +
                (null == setting ? "" : " (" + setting + ")") + " must lie in a private folder (mode 0700, this " +
                "user's, not a link), but its parent " + parent + " is not: " + problem);
        }
    }

    /**
     * @return the driver's directory, to be given to the ranks that use it.
     */
    public String aeronDirectoryName()
    {
        return driver.aeronDirectoryName();
    }

    /**
     * Stops the driver and deletes its directory.
     */
    public void close()
    {
        driver.close();
    }
}
