package io.stagecoach.node.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;

import io.stagecoach.node.dashboard.DashboardContext;
import io.stagecoach.node.dashboard.DashboardJobObserver;
import io.stagecoach.node.dashboard.DashboardJobs;
import io.stagecoach.node.dashboard.DashboardServer;
import io.stagecoach.node.dashboard.DashboardToken;
import io.stagecoach.node.launch.JobObserver;
import io.stagecoach.protocol.host.PrivateDirectory;

/**
 * {@code stagecoach run --dashboard}: the dashboard's server for the one job this command runs, started before the
 * ranks, its address printed, kept for a while after the job if asked, then closed. Off loopback it needs a token:
 * read from the file that {@value #TOKEN_FILE_VARIABLE} names (this user's, mode 0600), or made at random and written
 * to a new private file whose name is printed; never taken from the command line.
 */
final class RunDashboard implements AutoCloseable
{
    /** Names a file that holds the dashboard's token. */
    static final String TOKEN_FILE_VARIABLE = "STAGECOACH_DASHBOARD_TOKEN_FILE";

    private final DashboardServer server;
    private final DashboardJobObserver observer;
    private final Path tokenFolder;
    private final Duration linger;
    private final PrintWriter err;

    private RunDashboard(
        final DashboardServer server, final DashboardJobObserver observer, final Path tokenFolder,
        final Duration linger, final PrintWriter err)
    {
        this.server = server;
        this.observer = observer;
        this.tokenFolder = tokenFolder;
        this.linger = linger;
        this.err = err;
    }

    /**
     * @return whether Pekko HTTP is on the class path (a bundle of bin/build-bundle leaves it out).
     */
    static boolean available()
    {
        return DashboardServer.available();
    }

    /**
     * Starts the server and prints where it is.
     *
     * @param address where to listen.
     * @param port    the port, 0 for any.
     * @param linger  how long to keep serving after the job ended.
     * @param err     where the address goes.
     * @return the running dashboard.
     * @throws IOException when a token cannot be read or written.
     */
    static RunDashboard start(final String address, final int port, final Duration linger, final PrintWriter err)
        throws IOException
    {
        final DashboardContext context = new DashboardContext().address(address).port(port);
        Path tokenFolder = null;
        if (!isLoopback(address))
        {
            final String file = System.getenv(TOKEN_FILE_VARIABLE);
            if (null != file && !file.isBlank())
            {
                context.token(DashboardToken.read(Path.of(file), TOKEN_FILE_VARIABLE));
            }
            else
            {
                final String token = DashboardToken.random();
                tokenFolder = Files.createTempDirectory("stagecoach-dashboard-",
                    PosixFilePermissions.asFileAttribute(PrivateDirectory.DIRECTORY_MODE));
                final Path tokenFile = tokenFolder.resolve("token");
                try (var channel = PrivateDirectory.createFile(tokenFile))
                {
                    channel.write(StandardCharsets.UTF_8.encode(token + "\n"));
                }
                context.token(token);
                err.println("stagecoach: the dashboard's token is in " + tokenFile + " (removed when this command " +
                    "ends; " + TOKEN_FILE_VARIABLE + " names a file of your own instead)");
            }
        }
        final DashboardJobs jobs = new DashboardJobs();
        final DashboardServer server = DashboardServer.start(context, jobs);
        err.println("stagecoach: dashboard at " + server.url() + (context.isLoopbackOnly() ? "" :
            " (the page asks for the token)"));
        err.flush();
        return new RunDashboard(server, new DashboardJobObserver(jobs, context), tokenFolder, linger, err);
    }

    /**
     * @return what the launcher tells of the job.
     */
    JobObserver observer()
    {
        return observer;
    }

    /**
     * Keeps serving for the linger time after the job, then stops the server and removes a token it made.
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
            removeToken();
        }
    }

    private void removeToken()
    {
        if (null != tokenFolder)
        {
            try
            {
                Files.deleteIfExists(tokenFolder.resolve("token"));
                Files.deleteIfExists(tokenFolder);
            }
            catch (final IOException ex)
            {
                err.println("stagecoach: could not remove " + tokenFolder + ": " + ex.getMessage());
            }
        }
    }

    private static boolean isLoopback(final String address)
    {
        try
        {
            return DashboardContext.isLoopback(address);
        }
        catch (final IllegalArgumentException ex)
        {
            return false;
        }
    }
}
