package io.stagecoach.node.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;

import io.stagecoach.node.dashboard.DashboardContext;
import io.stagecoach.node.dashboard.DashboardJobObserver;
import io.stagecoach.node.dashboard.DashboardJobs;
import io.stagecoach.node.dashboard.DashboardServer;
import io.stagecoach.node.dashboard.DashboardToken;
import io.stagecoach.node.launch.JobObserver;

/**
 * {@code stagecoach run --dashboard}: the dashboard's server for the one job this command runs, started before the
 * ranks, kept for a while after the job if asked, then closed. It asks every request for a token, on loopback too:
 * read from the file that {@value #TOKEN_FILE_VARIABLE} names (this user's, mode 0600), or made at random; the printed
 * link carries it (the user's terminal only; never taken from or put on a command line).
 */
final class RunDashboard implements AutoCloseable
{
    /** Names a file that holds the dashboard's token. */
    static final String TOKEN_FILE_VARIABLE = "STAGECOACH_DASHBOARD_TOKEN_FILE";

    private final DashboardServer server;
    private final DashboardJobObserver observer;
    private final Duration linger;
    private final PrintWriter err;

    private RunDashboard(
        final DashboardServer server, final DashboardJobObserver observer, final Duration linger,
        final PrintWriter err)
    {
        this.server = server;
        this.observer = observer;
        this.linger = linger;
        this.err = err;
    }

    /**
     * Starts the server and prints where it is.
     *
     * @param address where to listen.
     * @param port    the port, 0 for any.
     * @param barsPerSecond chunk bars kept for drawing per second.
     * @param linger  how long to keep serving after the job ended.
     * @param err     where the address goes.
     * @return the running dashboard.
     * @throws IOException when the token file cannot be read or is not private.
     */
    static RunDashboard start(
        final String address, final int port, final int barsPerSecond, final Duration linger, final PrintWriter err)
        throws IOException
    {
        final DashboardContext context = new DashboardContext().address(address).port(port)
            .maxBarsPerSecond(barsPerSecond);
        final String file = System.getenv(TOKEN_FILE_VARIABLE);
        final boolean ownToken = null != file && !file.isBlank();
        context.token(ownToken ? DashboardToken.read(Path.of(file), TOKEN_FILE_VARIABLE) : DashboardToken.random());
        final DashboardJobs jobs = new DashboardJobs();
        final DashboardServer server = DashboardServer.start(context, jobs);
        err.println(ownToken ? "stagecoach: dashboard at " + server.url() + " (it asks for the token of " +
            TOKEN_FILE_VARIABLE + ")" : "stagecoach: dashboard at " + server.loginUrl() + " (the link holds this " +
            "run's token: keep it to yourself; " + server.url() + " asks for the token)");
        err.flush();
        return new RunDashboard(server, new DashboardJobObserver(jobs, context), linger, err);
    }

    /**
     * @return what the launcher tells of the job.
     */
    JobObserver observer()
    {
        return observer;
    }

    /**
     * Keeps serving for the linger time after the job, then stops the server.
     */
    public void close()
    {
        try
        {
            if (!linger.isZero())
            {
                err.println("stagecoach: the dashboard stays at " + server.url() + " for " + linger.toSeconds() +
                    " s (Ctrl-C ends it)");
                err.flush();
                Thread.sleep(linger.toMillis());
            }
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
        finally
        {
            server.close();
        }
    }


}
