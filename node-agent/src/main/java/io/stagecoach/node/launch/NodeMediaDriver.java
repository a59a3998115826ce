package io.stagecoach.node.launch;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;

import io.aeron.driver.MediaDriver;
import io.aeron.driver.ThreadingMode;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node's Aeron media driver for one job, embedded in the launcher: one shared agent thread that backs off to
 * parking when idle (the machine may have two cores, so it must never spin), its own directory, deleted at close.
 */
final class NodeMediaDriver implements AutoCloseable
{
    static final String IDLE_STRATEGY_PROPERTY = "aeron.shared.idle.strategy";

    private static final Logger LOG = LoggerFactory.getLogger(NodeMediaDriver.class);
    private static final long MAX_SPINS = 20;
    private static final long MAX_YIELDS = 50;
    private static final long MIN_PARK_NS = 1_000;
    private static final long MAX_PARK_NS = 1_000_000;

    private final Path directory;
    private MediaDriver driver;

    private NodeMediaDriver(final Path directory, final MediaDriver driver)
    {
        this.directory = directory;
        this.driver = driver;
    }

    static NodeMediaDriver launch(final Path directory)
    {
        final MediaDriver.Context context = new MediaDriver.Context()
            .aeronDirectoryName(directory.toString())
            .threadingMode(ThreadingMode.SHARED)
            .dirDeleteOnStart(true)
            .dirDeleteOnShutdown(true)
            .warnIfDirectoryExists(false)
            .errorHandler(ex -> LOG.warn("Aeron media driver in {}: {}", directory, ex.toString()));
        if (null == System.getProperty(IDLE_STRATEGY_PROPERTY))
        {
            context.sharedIdleStrategy(new BackoffIdleStrategy(MAX_SPINS, MAX_YIELDS, MIN_PARK_NS, MAX_PARK_NS));
        }
        try
        {
            final MediaDriver driver = MediaDriver.launch(context);
            LOG.debug("Aeron media driver running in {}", directory);
            return new NodeMediaDriver(directory, driver);
        }
        catch (final RuntimeException ex)
        {
            context.close();
            deleteRecursively(directory);
            throw new LaunchException("could not start the Aeron media driver in " + directory + ": " + ex, ex);
        }
    }

    Path directory()
    {
        return directory;
    }

    public synchronized void close()
    {
        if (null != driver)
        {
            try
            {
                driver.close();
            }
            catch (final RuntimeException ex)
            {
                LOG.warn("closing the Aeron media driver in {} failed: {}", directory, ex.toString());
            }
            driver = null;
            deleteRecursively(directory);
        }
    }

    static void deleteRecursively(final Path root)
    {
        if (!Files.exists(root))
        {
            return;
        }
        try
        {
            Files.walkFileTree(root, new SimpleFileVisitor<>()
            {
                public FileVisitResult visitFile(final Path file, final BasicFileAttributes attributes)
                    throws IOException
                {
                    Files.deleteIfExists(file);
                    return FileVisitResult.CONTINUE;
                }

                public FileVisitResult postVisitDirectory(final Path dir, final IOException ex) throws IOException
                {
                    Files.deleteIfExists(dir);
                    return FileVisitResult.CONTINUE;
                }
            });
        }
        catch (final IOException ex)
        {
            LOG.warn("could not delete {}: {}", root, ex.toString());
        }
    }
}
