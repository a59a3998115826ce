package io.stagecoach.node.agent;

import java.nio.file.Path;

/**
 * Where an agent serves the live dashboard of its jobs.
 *
 * @param port      the port ({@code dashboard.port}; 0 for any free port, -1, the default, for no dashboard).
 * @param address   where it listens ({@code dashboard.address}, 127.0.0.1 by default).
 * @param tokenFile the file holding the token that a dashboard off loopback asks for ({@code dashboard.token-file},
 *                  this user's, mode 0600), or null; required where the address is not a loopback address.
 */
public record DashboardSettings(int port, String address, Path tokenFile)
{
    /** No dashboard. */
    public static final DashboardSettings NONE = new DashboardSettings(-1, "127.0.0.1", null);

    /**
     * @return whether a dashboard is served.
     */
    public boolean enabled()
    {
        return port >= 0;
    }
}
