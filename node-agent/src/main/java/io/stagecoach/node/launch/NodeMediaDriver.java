package io.stagecoach.node.launch;

import java.nio.file.Path;

import io.stagecoach.pipeline.transport.aeron.EmbeddedMediaDriver;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node's Aeron media driver for one job, embedded in the launcher: the transport's {@link EmbeddedMediaDriver}
 * (one shared agent thread that backs off to parking when idle, so it never spins on a small machine) in a directory
 * inside the job's private folder, which the launcher deletes after closing the driver.
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
        }
    }
}
