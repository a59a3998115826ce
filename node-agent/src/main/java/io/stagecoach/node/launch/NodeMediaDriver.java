package io.stagecoach.node.launch;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;

import io.stagecoach.pipeline.transport.aeron.EmbeddedMediaDriver;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node's Aeron media driver for one job, embedded in the launcher: the transport's {@link EmbeddedMediaDriver}
 * (one shared agent thread that backs off to parking when idle, so it never spins on a small machine, and short
 * liveness timeouts so that a dead rank is noticed quickly) in the job's own directory, deleted at close.
 */
final class NodeMediaDriver implements AutoCloseable
{
    private static final Logger LOG = LoggerFactory.getLogger(NodeMediaDriver.class);

    private final Path directory;
    private EmbeddedMediaDriver driver;

    private NodeMediaDriver(final Path directory, final EmbeddedMediaDriver driver)
    {
        this.directory = directory;
        this.driver = driver;
    }

    static NodeMediaDriver launch(final Path directory)
    {
        try
        {
            final EmbeddedMediaDriver driver = EmbeddedMediaDriver.launch(directory.toString());
            LOG.debug("Aeron media driver running in {}", directory);
            return new NodeMediaDriver(directory, driver);
        }
        catch (final RuntimeException ex)
        {
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
