package io.stagecoach.node.agent;

import java.nio.file.Path;

import io.stagecoach.node.dashboard.DashboardContext;

/**
 * Where an agent serves the live dashboard of its jobs.
 *
 * @param port      the port ({@code dashboard.port}; 0 for any free port, -1, the default, for no dashboard).
 * @param address   where it listens ({@code dashboard.address}, 127.0.0.1 by default).
 * @param tokenFile the file holding the token that a dashboard off loopback asks for ({@code dashboard.token-file},
 *                  this user's, mode 0600), or null; required where the address is not a loopback address.
 * @param barsPerSecond the chunk bars kept for drawing per second ({@code dashboard.bars-per-second}); beyond it the
 *                  page samples, and says so.
 */
public record DashboardSettings(int port, String address, Path tokenFile, int barsPerSecond)
{
    /** No dashboard. */
    public static final DashboardSettings NONE =
        new DashboardSettings(-1, "127.0.0.1", null, DashboardContext.DEFAULT_BARS_PER_SECOND);

    /**
     * @return whether a dashboard is served.
     */
    public boolean enabled()
    {
        return port >= 0;
    }
}
