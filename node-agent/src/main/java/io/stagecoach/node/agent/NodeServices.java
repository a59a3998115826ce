package io.stagecoach.node.agent;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;

import io.stagecoach.node.dashboard.DashboardContext;
import io.stagecoach.node.dashboard.DashboardJobObserver;
import io.stagecoach.node.dashboard.DashboardJobs;
import io.stagecoach.node.dashboard.DashboardServer;
import io.stagecoach.node.dashboard.DashboardToken;
import io.stagecoach.node.dashboard.JobTrace;
import io.stagecoach.node.jobs.JobDashboard;
import io.stagecoach.node.jobs.NodeParts;
import io.stagecoach.node.launch.JobObserver;
import io.stagecoach.pipeline.transport.aeron.EmbeddedMediaDriver;
import io.stagecoach.rank.bootstrap.JobFolder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What an agent runs for the jobs of its node: the node's Aeron media driver, one for every job as Aeron deployments
 * run it, in a private folder of its own (in {@code /dev/shm} where it can be), the parts of jobs running here and,
 * where {@code dashboard.port} is set, the live dashboard: of every job submitted here, all its nodes' ranks, and of
 * the ranks running here of a job whose agent serves none. On loopback by default, on another address with
 * {@code dashboard.address}; it asks for the token of {@code dashboard.token-file}, or else of the file
 * {@value #TOKEN_FILE} it writes into the state folder at each start.
 */
final class NodeServices implements AutoCloseable, JobDashboard
{
    private static final Logger LOG = LoggerFactory.getLogger(NodeServices.class);

    private final JobFolder folder;
    private final EmbeddedMediaDriver driver;
    private final NodeParts parts = new NodeParts();
    /** The file in the state folder that holds the dashboard's token where dashboard.token-file names none. */
    static final String TOKEN_FILE = "dashboard.token";

    private final DashboardJobs dashboardJobs = new DashboardJobs();
    private final DashboardContext dashboardContext = new DashboardContext();
    private DashboardServer dashboard;

    private NodeServices(final JobFolder folder, final EmbeddedMediaDriver driver)
    {
        this.folder = folder;
        this.driver = driver;
    }

    static NodeServices start(final JobSettings settings, final Path stateFolder)
    {
        final JobFolder folder = JobFolder.create();
        NodeServices services = null;
        try
        {
            final EmbeddedMediaDriver driver = EmbeddedMediaDriver.launch(folder.aeronDirectory());
            LOG.info("the node's Aeron media driver runs in {}", folder.aeronDirectory());
            services = new NodeServices(folder, driver);
            services.startDashboard(settings.dashboard(), stateFolder);
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

    /**
     * Serves the dashboard where it is set, with the token of {@code dashboard.token-file}, or else a random one
     * written to {@value #TOKEN_FILE} in the agent's state folder (its user's alone), so that no other local user can
     * read the page on a loopback port either.
     */
    private void startDashboard(final DashboardSettings settings, final Path stateFolder)
    {
        if (!settings.enabled())
        {
            return;
        }
        if (!DashboardContext.serverAvailable())
        {
            LOG.warn("dashboard.port = {}, but Pekko HTTP is not on the class path: no dashboard", settings.port());
            return;
        }
        dashboardContext.address(settings.address()).port(settings.port()).maxBarsPerSecond(settings.barsPerSecond());
        if (null != settings.tokenFile())
        {
            try
            {
                dashboardContext.token(
                    DashboardToken.read(settings.tokenFile(), "stagecoach.agent.dashboard.token-file"));
            }
            catch (final IOException ex)
            {
                throw new AgentConfigException(ex.getMessage(), ex);
            }
            removeStaleToken(stateFolder.resolve(TOKEN_FILE));
        }
        else
        {
            dashboardContext.token(DashboardToken.random());
            writeToken(stateFolder.resolve(TOKEN_FILE), dashboardContext.token());
        }
        dashboard = DashboardServer.start(dashboardContext, dashboardJobs);
        LOG.info("the live dashboard of the jobs submitted here and of the ranks running here is at {} (the page " +
            "asks for the token{})", dashboard.url(), null != settings.tokenFile() ? " of dashboard.token-file" :
            " in " + stateFolder.resolve(TOKEN_FILE) + ", made at this start; " + dashboard.url() +
            "login?token=... logs a browser in");
    }

    private static void removeStaleToken(final Path file)
    {
        try
        {
            Files.deleteIfExists(file);
        }
        catch (final IOException ex)
        {
            LOG.warn("could not remove the dashboard token of an earlier start, {}: {}", file, ex.toString());
        }
    }

    private static void writeToken(final Path file, final String token)
    {
        try
        {
            final Path partial = Files.createTempFile(file.getParent(), TOKEN_FILE, ".partial",
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            Files.writeString(partial, token + "\n", StandardCharsets.UTF_8);
            Files.move(partial, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException("could not write the dashboard's token to " + file + ": " + ex, ex);
        }
    }

    public JobTrace show(final String jobId, final String program, final int size)
    {
        if (null == dashboard)
        {
            return null;
        }
        final JobTrace trace = new JobTrace(jobId, program, size, dashboardContext);
        dashboardJobs.add(trace);
        return trace;
    }

    public JobObserver partObserver()
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
