package io.stagecoach.rank;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.IntFunction;

import io.stagecoach.pipeline.transport.aeron.EmbeddedMediaDriver;
import io.stagecoach.pipeline.transport.aeron.PeerAddress;
import io.stagecoach.protocol.host.PrivateDirectory;

/**
 * Several ranks of one job inside this JVM, sharing one embedded media driver: each rank is a full
 * {@link Communicator} with its own actor system, engine, transport and progress thread.
 */
final class LocalJob implements AutoCloseable
{
    private static final AtomicInteger JOBS = new AtomicInteger();

    private final Path folder;
    private final EmbeddedMediaDriver driver;
    private final List<Communicator> ranks;

    private LocalJob(final Path folder, final EmbeddedMediaDriver driver, final List<Communicator> ranks)
    {
        this.folder = folder;
        this.driver = driver;
        this.ranks = ranks;
    }

    /**
     * Starts {@code size} ranks on one node. The media driver's directory is in a private folder in /dev/shm where it
     * exists: term buffers in a disk-backed directory would be written back to disk.
     */
    static LocalJob start(final Path directory, final int size, final Consumer<StagecoachContext> configure)
    {
        return start(directory, size, rank -> PeerAddress.local("node"), configure);
    }

    /**
     * Starts ranks with the given addresses: different node names make them talk over UDP on 127.0.0.1.
     */
    static LocalJob start(
        final Path directory,
        final int size,
        final IntFunction<PeerAddress> addresses,
        final Consumer<StagecoachContext> configure)
    {
        return start(directory, size, addresses, EmbeddedMediaDriver.CLIENT_LIVENESS_TIMEOUT_NS, configure);
    }

    /**
     * Starts ranks on one node whose driver tolerates clients that go unscheduled for up to the given time.
     */
    static LocalJob start(
        final Path directory,
        final int size,
        final long clientLivenessTimeoutNs,
        final Consumer<StagecoachContext> configure)
    {
        return start(directory, size, rank -> PeerAddress.local("node"), clientLivenessTimeoutNs, configure);
    }

    private static LocalJob start(
        final Path directory,
        final int size,
        final IntFunction<PeerAddress> addresses,
        final long clientLivenessTimeoutNs,
        final Consumer<StagecoachContext> configure)
    {
        final String jobId = "test-" + ProcessHandle.current().pid() + "-" + JOBS.incrementAndGet();
        final Path shm = Path.of("/dev/shm");
        final Path base = Files.isDirectory(shm) && Files.isWritable(shm) ? shm : directory;
        final Path folder = PrivateDirectory.createExclusive(base, "stagecoach-test-");
        final EmbeddedMediaDriver driver = EmbeddedMediaDriver.launch(
            folder.resolve("aeron").toString(), clientLivenessTimeoutNs);
        final List<PeerAddress> peers = new ArrayList<>();
        for (int i = 0; i < size; i++)
        {
            peers.add(addresses.apply(i));
        }
        final ExecutorService starters = Executors.newFixedThreadPool(size);
        final List<Future<Communicator>> started = new ArrayList<>();
        for (int i = 0; i < size; i++)
        {
            final StagecoachContext context = new StagecoachContext()
                .rank(i)
                .size(size)
                .jobId(jobId)
                .nodeName(peers.get(i).node())
                .peers(peers)
                .aeronDirectoryName(driver.aeronDirectoryName())
                .connectTimeout(Duration.ofSeconds(20))
                .useRendezvous(false);
            configure.accept(context);
            started.add(starters.submit(() -> Stagecoach.init(context)));
        }
        final List<Communicator> ranks = new ArrayList<>();
        try
        {
            for (final Future<Communicator> future : started)
            {
                ranks.add(future.get(30, TimeUnit.SECONDS));
            }
        }
        catch (final Exception ex)
        {
            ranks.forEach(Communicator::close);
            driver.close();
            PrivateDirectory.deleteTree(folder);
            throw new IllegalStateException("ranks did not start: " + ex, ex);
        }
        finally
        {
            starters.shutdownNow();
        }
        return new LocalJob(folder, driver, ranks);
    }

    Communicator rank(final int rank)
    {
        return ranks.get(rank);
    }

    int size()
    {
        return ranks.size();
    }

    public void close()
    {
        ranks.parallelStream().forEach(Communicator::close);
        driver.close();
        PrivateDirectory.deleteTree(folder);
    }
}
