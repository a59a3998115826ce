package io.stagecoach.pipeline.transport.aeron;

import java.util.concurrent.TimeUnit;

import io.aeron.driver.MediaDriver;
import io.aeron.driver.ThreadingMode;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A media driver inside this process, with its own directory, for single-process use and tests. Tuned for small
 * machines: one shared agent thread that backs off to short parks when idle, and short liveness timeouts so that
 * a rank that stops is noticed within about a second.
 */
public final class EmbeddedMediaDriver implements AutoCloseable
{
    /**
     * How long a client may go without a keep-alive before the driver drops its publications; clients of
     * {@link AeronTransport} send one every {@link AeronTransport#KEEP_ALIVE_INTERVAL_NS}.
     */
    public static final long CLIENT_LIVENESS_TIMEOUT_NS = TimeUnit.MILLISECONDS.toNanos(1000);
    /** How long a network image may go without data or heartbeat before it is unavailable. */
    public static final long IMAGE_LIVENESS_TIMEOUT_NS = TimeUnit.MILLISECONDS.toNanos(1000);

    private static final Logger LOG = LoggerFactory.getLogger(EmbeddedMediaDriver.class);

    private final MediaDriver driver;

    private EmbeddedMediaDriver(final MediaDriver driver)
    {
        this.driver = driver;
    }

    /**
     * Launches a driver in a fresh directory, deleted on close.
     *
     * @param directoryName the driver's directory; an existing one is deleted first.
     * @return the running driver.
     */
    public static EmbeddedMediaDriver launch(final String directoryName)
    {
        return launch(directoryName, CLIENT_LIVENESS_TIMEOUT_NS);
    }

    /**
     * Launches a driver in a fresh directory, deleted on close, with a longer client liveness: for jobs on a machine
     * so loaded that a client's conductor thread may go unscheduled for over a second, at the price of noticing a
     * rank that stops that much later.
     *
     * @param directoryName           the driver's directory; an existing one is deleted first.
     * @param clientLivenessTimeoutNs how long a client may go without a keep-alive; also the longest its conductor
     *                                may go between duty cycles before the client closes itself.
     * @return the running driver.
     */
    public static EmbeddedMediaDriver launch(final String directoryName, final long clientLivenessTimeoutNs)
    {
        final MediaDriver.Context context = new MediaDriver.Context()
            .aeronDirectoryName(directoryName)
            .dirDeleteOnStart(true)
            .dirDeleteOnShutdown(true)
            .threadingMode(ThreadingMode.SHARED)
            .sharedIdleStrategy(new BackoffIdleStrategy(64, 16, TimeUnit.MICROSECONDS.toNanos(1),
                TimeUnit.MILLISECONDS.toNanos(1)))
            .clientLivenessTimeoutNs(clientLivenessTimeoutNs)
            .imageLivenessTimeoutNs(IMAGE_LIVENESS_TIMEOUT_NS)
            .publicationUnblockTimeoutNs(
                Math.max(TimeUnit.SECONDS.toNanos(3), clientLivenessTimeoutNs + TimeUnit.SECONDS.toNanos(2)))
            .publicationLingerTimeoutNs(TimeUnit.MILLISECONDS.toNanos(200))
            .timerIntervalNs(TimeUnit.MILLISECONDS.toNanos(10))
            .termBufferSparseFile(true)
            .warnIfDirectoryExists(false);
        final MediaDriver driver = MediaDriver.launch(context);
        LOG.info("embedded media driver in {}", driver.aeronDirectoryName());
        return new EmbeddedMediaDriver(driver);
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
