package io.stagecoach.node.agent;

import java.nio.file.Path;

import io.stagecoach.node.jobs.NodeParts;
import io.stagecoach.pipeline.transport.aeron.EmbeddedMediaDriver;
import io.stagecoach.rank.bootstrap.JobFolder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What an agent runs for the jobs of its node: the node's Aeron media driver, one for every job as Aeron deployments
 * run it, in a private folder of its own (in {@code /dev/shm} where it can be), and the parts of jobs running here.
 */
final class NodeServices implements AutoCloseable
{
    private static final Logger LOG = LoggerFactory.getLogger(NodeServices.class);

    private final JobFolder folder;
    private final EmbeddedMediaDriver driver;
    private final NodeParts parts = new NodeParts();

    private NodeServices(final JobFolder folder, final EmbeddedMediaDriver driver)
    {
        this.folder = folder;
        this.driver = driver;
    }

    static NodeServices start()
    {
        final JobFolder folder = JobFolder.create();
        try
        {
            final EmbeddedMediaDriver driver = EmbeddedMediaDriver.launch(folder.aeronDirectory());
            LOG.info("the node's Aeron media driver runs in {}", folder.aeronDirectory());
            return new NodeServices(folder, driver);
        }
        catch (final RuntimeException ex)
        {
            folder.close();
            throw ex;
        }
    }

    Path aeronDirectory()
    {
        return Path.of(folder.aeronDirectory());
    }

    NodeParts parts()
    {
        return parts;
    }

    public void close()
    {
        try
        {
            driver.close();
        }
        catch (final RuntimeException ex)
        {
            LOG.warn("closing the node's Aeron media driver: {}", ex.toString());
        }
        folder.close();
    }
}
