package io.stagecoach.node.agent;

import java.nio.file.Path;

import io.stagecoach.node.dashboard.DashboardContext;
import io.stagecoach.node.dashboard.DashboardJobObserver;
import io.stagecoach.node.dashboard.DashboardJobs;
import io.stagecoach.node.dashboard.DashboardServer;
import io.stagecoach.node.jobs.NodeParts;
import io.stagecoach.node.launch.JobObserver;
import io.stagecoach.pipeline.transport.aeron.EmbeddedMediaDriver;
import io.stagecoach.rank.bootstrap.JobFolder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What an agent runs for the jobs of its node: the node's Aeron media driver, one for every job as Aeron deployments
 * run it, in a private folder of its own (in {@code /dev/shm} where it can be), the parts of jobs running here and,
 * where {@code dashboard.port} is set, the live dashboard of those jobs' ranks on the loopback address.
 */
final class NodeServices implements AutoCloseable
{
    private static final Logger LOG = LoggerFactory.getLogger(NodeServices.class);

    private final JobFolder folder;
    private final EmbeddedMediaDriver driver;
    private final NodeParts parts = new NodeParts();
    private final DashboardJobs dashboardJobs = new DashboardJobs();
    private final DashboardContext dashboardContext = new DashboardContext().address("127.0.0.1");
    private DashboardServer dashboard;

    private NodeServices(final JobFolder folder, final EmbeddedMediaDriver driver)
    {
        this.folder = folder;
        this.driver = driver;
    }

    static NodeServices start(final JobSettings settings)
    {
        final JobFolder folder = JobFolder.create();
        NodeServices services = null;
        try
        {
            final EmbeddedMediaDriver driver = EmbeddedMediaDriver.launch(folder.aeronDirectory());
            LOG.info("the node's Aeron media driver runs in {}", folder.aeronDirectory());
            services = new NodeServices(folder, driver);
            services.startDashboard(settings.dashboardPort());
            return services;
        }
        catch (final RuntimeException ex)
        {
            if (null != services)
            {
                services.close();
            }
            else
            {
                folder.close();
            }
            throw ex;
        }
    }

    private void startDashboard(final int port)
    {
        if (port < 0)
        {
            return;
        }
        if (!DashboardServer.available())
        {
            LOG.warn("dashboard.port = {}, but Pekko HTTP is not on the class path: no dashboard", port);
            return;
        }
        dashboard = DashboardServer.start(dashboardContext.port(port), dashboardJobs);
        LOG.info("the live dashboard of the jobs running here is at {}", dashboard.url());
    }

    /**
     * @return what a launcher of this node's ranks of a job tells its start and end to: the dashboard, or nothing.
     */
    JobObserver jobObserver()
    {
        return null == dashboard ? JobObserver.NONE : new DashboardJobObserver(dashboardJobs, dashboardContext);
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
        if (null != dashboard)
        {
            dashboard.close();
        }
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
