package io.stagecoach.node.dashboard;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.concurrent.TimeUnit;

/**
 * Settings of a dashboard, Aeron style: setters return this, {@link #conclude()} validates and names a bad value.
 * <table>
 * <caption>Settings</caption>
 * <tr><th>setting</th><th>default</th><th>meaning</th></tr>
 * <tr><td>{@link #address(String)}</td><td>127.0.0.1</td><td>where the server listens; any address that is not a
 * loopback address needs a {@link #token(String)}</td></tr>
 * <tr><td>{@link #port(int)}</td><td>0 (any free port)</td><td>the port</td></tr>
 * <tr><td>{@link #token(String)}</td><td>none: the server makes one</td><td>the secret every request must carry (a
 * cookie set by the login, or {@code Authorization: Bearer}); given, off loopback, by the one who serves it</td></tr>
 * <tr><td>{@link #maxBarsPerSecond(int)}</td><td>5,000</td><td>chunk bars kept for drawing per second; more are
 * sampled evenly and counted</td></tr>
 * <tr><td>{@link #maxBarsPerFrame(int)}</td><td>4,000</td><td>bars sent to a browser in one update</td></tr>
 * <tr><td>{@link #recentBars(int)}</td><td>50,000</td><td>bars kept for a browser that opens the page late</td></tr>
 * <tr><td>{@link #exportRecords(int)}</td><td>262,144 (12 MiB)</td><td>stage records kept for the download, the
 * newest</td></tr>
 * <tr><td>{@link #maxFlights(int)}</td><td>8,192</td><td>transfers in flight followed at once</td></tr>
 * <tr><td>{@link #framePeriodNs(long)}</td><td>250 ms</td><td>how often a browser is sent an update</td></tr>
 * <tr><td>{@link #rateWindowNs(long)}</td><td>2 s</td><td>the window of the link rates</td></tr>
 * <tr><td>{@link #downloadStallNs(long)}</td><td>30 s</td><td>how long a download waits for a browser that stopped
 * reading (or went away) before it ends</td></tr>
 * </table>
 */
public final class DashboardContext
{
    /** The address the server listens on unless told otherwise. */
    public static final String LOOPBACK = "127.0.0.1";
    /** Chunk bars kept for drawing per second unless told otherwise: about what a browser draws. */
    public static final int DEFAULT_BARS_PER_SECOND = 5_000;
    /** The fewest chunk bars per second that may be kept for drawing: one in each sampling period of 200 ms. */
    public static final int MIN_BARS_PER_SECOND = 5;
    /** The most chunk bars per second that may be kept for drawing. */
    public static final int MAX_BARS_PER_SECOND = 1_000_000;

    private String address = LOOPBACK;
    private int port;
    private String token;
    private int maxBarsPerSecond = DEFAULT_BARS_PER_SECOND;
    private int maxBarsPerFrame = 4_000;
    private int recentBars = 50_000;
    private int exportRecords = 262_144;
    private int maxFlights = 8_192;
    private long framePeriodNs = TimeUnit.MILLISECONDS.toNanos(250);
    private long downloadStallNs = TimeUnit.SECONDS.toNanos(30);
    private long rateWindowNs = TimeUnit.SECONDS.toNanos(2);
    private boolean loopback;
    private boolean concluded;

    /**
     * Asked here, in a class that names no type of Pekko HTTP: the bytecode verifier loads some of those as soon as
     * {@link DashboardServer} is loaded, which would fail where they are missing.
     *
     * @return whether Pekko HTTP is on the class path (a bundle of bin/build-bundle leaves it out).
     */
    public static boolean serverAvailable()
    {
        try
        {
            Class.forName("org.apache.pekko.http.javadsl.Http", false, DashboardContext.class.getClassLoader());
            return true;
        }
        catch (final ClassNotFoundException ex)
        {
            return false;
        }
    }

    /**
     * Validates the settings.
     *
     * @return this.
     * @throws IllegalArgumentException naming the setting, its value and the limit.
     */
    public DashboardContext conclude()
    {
        if (concluded)
        {
            return this;
        }
        if (port < 0 || port > 65_535)
        {
            throw new IllegalArgumentException("dashboard port " + port + " is outside [0, 65535]");
        }
        loopback = isLoopback(address);
        if (!loopback && (null == token || token.length() < 16))
        {
            throw new IllegalArgumentException("a dashboard on " + address + ", which is not a loopback address, " +
                "needs a token of at least 16 characters");
        }
        within("maxBarsPerSecond", maxBarsPerSecond, MIN_BARS_PER_SECOND, MAX_BARS_PER_SECOND);
        within("maxBarsPerFrame", maxBarsPerFrame, 1, 100_000);
        within("recentBars", recentBars, 1, 10_000_000);
        within("exportRecords", exportRecords, 1, 16_777_216);
        within("maxFlights", maxFlights, 1, 1_000_000);
        if (framePeriodNs < TimeUnit.MILLISECONDS.toNanos(20) || framePeriodNs > TimeUnit.SECONDS.toNanos(10))
        {
            throw new IllegalArgumentException("dashboard frame period " + framePeriodNs + " ns is outside [20 ms, " +
                "10 s]");
        }
        if (downloadStallNs < TimeUnit.MILLISECONDS.toNanos(100) || downloadStallNs > TimeUnit.MINUTES.toNanos(10))
        {
            throw new IllegalArgumentException("dashboard download stall " + downloadStallNs + " ns is outside " +
                "[100 ms, 10 min]");
        }
        if (rateWindowNs < LinkRate.BUCKET_NS || rateWindowNs > (LinkRate.BUCKETS - 1) * LinkRate.BUCKET_NS)
        {
            throw new IllegalArgumentException("dashboard rate window " + rateWindowNs + " ns is outside [" +
                LinkRate.BUCKET_NS + ", " + (LinkRate.BUCKETS - 1) * LinkRate.BUCKET_NS + "]");
        }
        concluded = true;
        return this;
    }

    /**
     * @param address where to listen: an IP address or a host name; 127.0.0.1 by default.
     * @return this.
     */
    public DashboardContext address(final String address)
    {
        this.address = address;
        return this;
    }

    /**
     * @return where to listen.
     */
    public String address()
    {
        return address;
    }

    /**
     * @return whether the address is a loopback address (known after {@link #conclude()}).
     */
    public boolean isLoopbackOnly()
    {
        return loopback;
    }

    /**
     * @param port the port, 0 for any free one.
     * @return this.
     */
    public DashboardContext port(final int port)
    {
        this.port = port;
        return this;
    }

    /**
     * @return the port asked for.
     */
    public int port()
    {
        return port;
    }

    /**
     * @param token the secret a request must carry; null for none (loopback only).
     * @return this.
     */
    public DashboardContext token(final String token)
    {
        this.token = token;
        return this;
    }

    /**
     * @return the token, or null.
     */
    public String token()
    {
        return token;
    }

    /**
     * @param bars chunk bars kept for drawing per second.
     * @return this.
     */
    public DashboardContext maxBarsPerSecond(final int bars)
    {
        this.maxBarsPerSecond = bars;
        return this;
    }

    /**
     * @return chunk bars kept for drawing per second.
     */
    public int maxBarsPerSecond()
    {
        return maxBarsPerSecond;
    }

    /**
     * @param bars sent in one update.
     * @return this.
     */
    public DashboardContext maxBarsPerFrame(final int bars)
    {
        this.maxBarsPerFrame = bars;
        return this;
    }

    /**
     * @return bars sent in one update.
     */
    public int maxBarsPerFrame()
    {
        return maxBarsPerFrame;
    }

    /**
     * @param bars kept for a browser that opens the page late.
     * @return this.
     */
    public DashboardContext recentBars(final int bars)
    {
        this.recentBars = bars;
        return this;
    }

    /**
     * @return bars kept for a browser that opens the page late.
     */
    public int recentBars()
    {
        return recentBars;
    }

    /**
     * @param records stage records kept for the download.
     * @return this.
     */
    public DashboardContext exportRecords(final int records)
    {
        this.exportRecords = records;
        return this;
    }

    /**
     * @return stage records kept for the download.
     */
    public int exportRecords()
    {
        return exportRecords;
    }

    /**
     * @param flights transfers in flight followed at once.
     * @return this.
     */
    public DashboardContext maxFlights(final int flights)
    {
        this.maxFlights = flights;
        return this;
    }

    /**
     * @return transfers in flight followed at once.
     */
    public int maxFlights()
    {
        return maxFlights;
    }

    /**
     * @param periodNs how often a browser gets an update.
     * @return this.
     */
    public DashboardContext framePeriodNs(final long periodNs)
    {
        this.framePeriodNs = periodNs;
        return this;
    }

    /**
     * @return how often a browser gets an update.
     */
    public long framePeriodNs()
    {
        return framePeriodNs;
    }

    /**
     * @param windowNs the window of the link rates.
     * @return this.
     */
    public DashboardContext rateWindowNs(final long windowNs)
    {
        this.rateWindowNs = windowNs;
        return this;
    }

    /**
     * @return the window of the link rates.
     */
    public long rateWindowNs()
    {
        return rateWindowNs;
    }

    /**
     * @param stallNs how long a download waits for a browser that stopped reading before it ends.
     * @return this.
     */
    public DashboardContext downloadStallNs(final long stallNs)
    {
        this.downloadStallNs = stallNs;
        return this;
    }

    /**
     * @return how long a download waits for a browser that stopped reading before it ends.
     */
    public long downloadStallNs()
    {
        return downloadStallNs;
    }

    public String toString()
    {
        return "DashboardContext{address=" + address + ", port=" + port + ", token=" + (null == token ? "none" : "set") +
            ", maxBarsPerSecond=" + maxBarsPerSecond + ", exportRecords=" + exportRecords + "}";
    }

    private static void within(final String name, final long value, final long min, final long max)
    {
        if (value < min || value > max)
        {
            throw new IllegalArgumentException("dashboard " + name + " " + value + " is outside [" + min + ", " + max +
                "]");
        }
    }

    /**
     * @param address an IP address or a host name.
     * @return whether every address it names is a loopback address.
     * @throws IllegalArgumentException naming it where it does not resolve.
     */
    public static boolean isLoopback(final String address)
    {
        try
        {
            for (final InetAddress resolved : InetAddress.getAllByName(address))
            {
                if (!resolved.isLoopbackAddress())
                {
                    return false;
                }
            }
            return true;
        }
        catch (final UnknownHostException ex)
        {
            throw new IllegalArgumentException("dashboard address " + address + " is not known: " + ex.getMessage(),
                ex);
        }
    }
}
