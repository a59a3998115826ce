package io.stagecoach.rank.bootstrap;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import static io.stagecoach.rank.bootstrap.RendezvousProtocol.BYE;
import static io.stagecoach.rank.bootstrap.RendezvousProtocol.DEAD;
import static io.stagecoach.rank.bootstrap.RendezvousProtocol.ERR;
import static io.stagecoach.rank.bootstrap.RendezvousProtocol.FENCE;
import static io.stagecoach.rank.bootstrap.RendezvousProtocol.FENCED;
import static io.stagecoach.rank.bootstrap.RendezvousProtocol.GET;
import static io.stagecoach.rank.bootstrap.RendezvousProtocol.LOST;
import static io.stagecoach.rank.bootstrap.RendezvousProtocol.NONE;
import static io.stagecoach.rank.bootstrap.RendezvousProtocol.OK;
import static io.stagecoach.rank.bootstrap.RendezvousProtocol.PUT;
import static io.stagecoach.rank.bootstrap.RendezvousProtocol.VALUE;

/**
 * A rank's connection to its launcher's rendezvous service (PMI-like key exchange on the loopback network): each
 * rank {@link #put}s what its peers need, all ranks {@link #fence}, then each {@link #get}s what the others put.
 * The service also tells every connected rank when a peer's process dies ({@link RendezvousListener}). A rank joins
 * by proving that it knows the job's {@link JobSecret}, which the launcher gives it in its environment.
 * <p>
 * Requests are serialised: one at a time per client, each bounded by a timeout. Thread safe.
 */
public final class RendezvousClient implements AutoCloseable
{
    /**
     * Bound on a put, get or close when no other is set with {@link #requestTimeout(Duration)}.
     */
    public static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofSeconds(30);

    private static final Logger LOG = LoggerFactory.getLogger(RendezvousClient.class);
    private static final String CONNECTION_LOST = new String("connection lost");
    private static final long FENCE_REPLY_SLACK_MS = 5_000;
    private static final long CLOSE_TIMEOUT_MS = 1_000;

    private final InetSocketAddress server;
    private final int rank;
    private final int size;
    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;
    private final BlockingQueue<String> replies = new LinkedBlockingQueue<>();
    private final CopyOnWriteArrayList<RendezvousListener> listeners = new CopyOnWriteArrayList<>();
    private final Map<Integer, String> deadRanks = new ConcurrentSkipListMap<>();
    private final Thread reader;
    private volatile String failure;
    private volatile boolean closing;
    private volatile long requestTimeoutMs = DEFAULT_REQUEST_TIMEOUT.toMillis();
    private int fenceEpoch;

    RendezvousClient(
        final InetSocketAddress server, final int rank, final int size, final Socket socket) throws IOException
    {
        this.server = server;
        this.rank = rank;
        this.size = size;
        this.socket = socket;
        this.in = new BufferedInputStream(socket.getInputStream());
        this.out = socket.getOutputStream();
        this.reader = new Thread(this::readReplies, "stagecoach-rendezvous-rank-" + rank);
        this.reader.setDaemon(true);
    }

    /**
     * Connect to the rendezvous service named by a launch environment, proving that this rank knows the job's secret.
     *
     * @param environment of this rank, with a rendezvous address and the job's secret.
     * @param timeout     bound on reaching the service and being accepted.
     * @return the connected client.
     * @throws IllegalStateException when the environment names no rendezvous service, or no secret (a rank started
     *                               by a launcher older than protocol version 2, or whose environment lost it).
     * @throws RendezvousException   when the service cannot be reached or refuses this rank in time.
     */
    public static RendezvousClient connect(final LaunchEnvironment environment, final Duration timeout)
    {
        final InetSocketAddress address = environment.rendezvous().orElseThrow(() -> new IllegalStateException(
            "no rendezvous service for rank " + environment.rank() + ": " + LaunchEnvironment.RENDEZVOUS +
            " is not set (launched by " + environment.source() + ")"));
        final JobSecret secret = environment.secret().orElseThrow(() -> new IllegalStateException(
            "rank " + environment.rank() + " cannot join the rendezvous service at " + format(address) + ": " +
            LaunchEnvironment.SECRET + " is not set; the service admits only ranks that know the job's secret, " +
            "which stagecoach run gives its ranks in the environment since rendezvous protocol version " +
            RendezvousProtocol.VERSION + " (was this rank started by an older launcher?)"));
        return connect(address, environment.jobId(), secret, environment.rank(), environment.size(), timeout);
    }

    /**
     * Connect to a rendezvous service that admits ranks without a secret (a test double; the launcher's service
     * refuses them), as a rank of whatever job it serves.
     *
     * @param server  the service's address, on the loopback network.
     * @param rank    this process's rank.
     * @param size    the number of ranks in the job.
     * @param timeout bound on reaching the service (retried while it refuses connections) and being accepted.
     * @return the connected client.
     * @throws RendezvousException when the service cannot be reached or refuses this rank in time.
     */
    public static RendezvousClient connect(
        final InetSocketAddress server, final int rank, final int size, final Duration timeout)
    {
        return RendezvousConnector.join(server, RendezvousProtocol.ANY_JOB, null, rank, size, timeout);
    }

    /**
     * Connect to a rendezvous service that admits ranks without a secret (a test double; the launcher's service
     * refuses them), as a rank of the given job.
     *
     * @param server  the service's address, on the loopback network.
     * @param jobId   the job this rank belongs to; the service refuses ranks of other jobs.
     * @param rank    this process's rank.
     * @param size    the number of ranks in the job.
     * @param timeout bound on reaching the service (retried while it refuses connections) and being accepted.
     * @return the connected client.
     * @throws RendezvousException when the service cannot be reached or refuses this rank in time.
     */
    public static RendezvousClient connect(
        final InetSocketAddress server, final String jobId, final int rank, final int size, final Duration timeout)
    {
        return RendezvousConnector.join(server, jobId, null, rank, size, timeout);
    }

    /**
     * Connect to a rendezvous service as a rank of the given job, proving that this rank knows the job's secret
     * (an HMAC of the service's challenge; the secret itself is not sent).
     *
     * @param server  the service's address, on the loopback network.
     * @param jobId   the job this rank belongs to; the service refuses ranks of other jobs.
     * @param secret  the job's secret.
     * @param rank    this process's rank.
     * @param size    the number of ranks in the job.
     * @param timeout bound on reaching the service (retried while it refuses connections or is busy) and being
     *                accepted.
     * @return the connected client.
     * @throws RendezvousException when the service cannot be reached or refuses this rank in time.
     */
    public static RendezvousClient connect(
        final InetSocketAddress server,
        final String jobId,
        final JobSecret secret,
        final int rank,
        final int size,
        final Duration timeout)
    {
        return RendezvousConnector.join(server, jobId, Objects.requireNonNull(secret, "secret"), rank, size, timeout);
    }

    /**
     * @param timeout new bound on each put, get and close.
     * @return this for a fluent API.
     */
    public RendezvousClient requestTimeout(final Duration timeout)
    {
        if (timeout.isNegative() || timeout.isZero())
        {
            throw new IllegalArgumentException("request timeout must be positive: " + timeout);
        }
        requestTimeoutMs = timeout.toMillis();
        return this;
    }

    /**
     * @return this client's rank.
     */
    public int rank()
    {
        return rank;
    }

    /**
     * @return the number of ranks in the job.
     */
    public int size()
    {
        return size;
    }

    /**
     * @return the service's address.
     */
    public InetSocketAddress serverAddress()
    {
        return server;
    }

    /**
     * Store a value under a key of this rank. Peers see it once they and this rank have passed the next fence.
     *
     * @param key   1 to {@link RendezvousProtocol#MAX_KEY_CHARS} characters without whitespace.
     * @param value at most {@link RendezvousProtocol#MAX_VALUE_CHARS} characters without line breaks.
     * @throws RendezvousException when the service refuses or does not answer in time.
     */
    public void put(final String key, final String value)
    {
        RendezvousProtocol.checkKey(key);
        RendezvousProtocol.checkValue(key, value);
        final String reply = request(PUT + " " + key + " " + value, requestTimeoutMs, "PUT " + key);
        if (!OK.equals(reply))
        {
            throw refused("PUT " + key, reply);
        }
    }

    /**
     * Look up a value a rank put.
     *
     * @param rank whose value to read.
     * @param key  the value was put under.
     * @return the value, or null when that rank has not put the key (before a fence it may not have yet).
     * @throws RendezvousException when the service refuses or does not answer in time.
     */
    public String get(final int rank, final String key)
    {
        checkRank(rank);
        RendezvousProtocol.checkKey(key);
        final String what = "GET " + rank + " " + key;
        final String reply = request(what, requestTimeoutMs, what);
        if (NONE.equals(reply))
        {
            return null;
        }
        if (reply.equals(VALUE) || reply.startsWith(VALUE + " "))
        {
            return reply.length() > VALUE.length() ? reply.substring(VALUE.length() + 1) : "";
        }
        throw refused(what, reply);
    }

    /**
     * Wait until every rank of the job has called fence as often as this one: afterwards every value put before
     * the fence by any rank is visible to {@link #get}.
     *
     * @param timeout bound on the wait.
     * @throws RendezvousException naming the ranks that did not arrive when the timeout passes, or the rank that
     *                             died or left when the fence can no longer complete.
     */
    public synchronized void fence(final Duration timeout)
    {
        final int epoch = fenceEpoch + 1;
        final long timeoutMs = Math.max(1, timeout.toMillis());
        final String what = "fence " + epoch;
        final String reply = request(FENCE + " " + epoch + " " + timeoutMs, timeoutMs + FENCE_REPLY_SLACK_MS, what);
        if (!reply.equals(FENCED + " " + epoch))
        {
            throw refused(what, reply);
        }
        fenceEpoch = epoch;
    }

    /**
     * Register a listener for peer deaths and the loss of the service. Deaths already seen are delivered at once,
     * on the calling thread.
     *
     * @param listener to add.
     */
    public void addListener(final RendezvousListener listener)
    {
        listeners.add(Objects.requireNonNull(listener, "listener"));
        deadRanks.forEach(listener::onPeerDeath);
        final String lost = failure;
        if (null != lost && !closing)
        {
            listener.onServerLost(lost);
        }
    }

    /**
     * @param listener to remove.
     */
    public void removeListener(final RendezvousListener listener)
    {
        listeners.remove(listener);
    }

    /**
     * @return ranks reported dead so far, with the reason, ordered by rank.
     */
    public Map<Integer, String> deadRanks()
    {
        return new TreeMap<>(deadRanks);
    }

    /**
     * Tell the launcher that this rank lost a peer, before this rank fails because of it, so that the launcher names
     * the lost peer, not this rank, as the job's first failure. The report ({@code LOST}) has no reply: it is written
     * at once, also while another request waits for its reply, and does not wait for an answer.
     *
     * @param peer   the rank lost.
     * @param reason what was observed, e.g. {@code "no message for 20 s"}; line breaks become spaces, at most
     *               {@link RendezvousProtocol#MAX_REASON_CHARS} characters are kept.
     * @return true when the report was written; false when the connection is closed or unusable (logged at debug).
     * @throws IllegalArgumentException when the peer is not another rank of the job.
     */
    public boolean reportLostPeer(final int peer, final String reason)
    {
        checkRank(peer);
        if (peer == rank)
        {
            throw new IllegalArgumentException("rank " + rank + " cannot report losing itself");
        }
        if (closing || null != failure)
        {
            LOG.debug("rank {}: cannot report losing rank {}, the rendezvous connection is closed or unusable",
                rank, peer);
            return false;
        }
        try
        {
            write(LOST + " " + peer + " " + RendezvousProtocol.reasonText(reason));
            return true;
        }
        catch (final IOException ex)
        {
            LOG.debug("rank {}: could not report losing rank {}: {}", rank, peer, ex.toString());
            return false;
        }
    }

    /**
     * Leave the job: tell the service this rank is done (so it is not reported as dead) and close the connection.
     * Waits at most one second for the service's acknowledgement. Idempotent.
     */
    public synchronized void close()
    {
        if (closing)
        {
            return;
        }
        try
        {
            if (null == failure)
            {
                request(BYE, CLOSE_TIMEOUT_MS, BYE);
            }
        }
        catch (final RendezvousException ex)
        {
            LOG.debug("rank {}: {}", rank, ex.getMessage());
        }
        finally
        {
            closing = true;
            closeQuietly(socket);
            joinReader();
        }
    }

    public String toString()
    {
        return "RendezvousClient{rank=" + rank + ", size=" + size + ", server=" + format(server) + "}";
    }

    private synchronized String request(final String line, final long timeoutMs, final String what)
    {
        checkUsable(what);
        try
        {
            write(line);
            final String reply = replies.poll(timeoutMs, TimeUnit.MILLISECONDS);
            if (null == reply)
            {
                failure = "no answer to " + what + " within " + formatMillis(timeoutMs);
                closeQuietly(socket);
                throw new RendezvousException("rank " + rank + ": rendezvous service at " + format(server) +
                    " did not answer " + what + " within " + formatMillis(timeoutMs));
            }
            if (CONNECTION_LOST == reply)
            {
                throw new RendezvousException(
                    "rank " + rank + ": " + what + " failed, the rendezvous connection to " + format(server) +
                    " was lost: " + failure);
            }
            return reply;
        }
        catch (final IOException ex)
        {
            throw new RendezvousException("rank " + rank + ": " + what + " failed to reach the rendezvous service at " +
                format(server) + ": " + ex, ex);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new RendezvousException("rank " + rank + ": interrupted while waiting for " + what, ex);
        }
    }

    private void checkUsable(final String what)
    {
        if (closing)
        {
            throw new RendezvousException("rank " + rank + ": " + what + " on a closed rendezvous client");
        }
        final String lost = failure;
        if (null != lost)
        {
            throw new RendezvousException("rank " + rank + ": " + what + " impossible, the rendezvous connection to " +
                format(server) + " is unusable: " + lost);
        }
    }

    String readHandshakeLine(final String waitingFor, final Duration timeout) throws IOException
    {
        final String line;
        try
        {
            line = RendezvousProtocol.readLine(in, RendezvousProtocol.MAX_LINE_BYTES);
        }
        catch (final SocketTimeoutException ex)
        {
            throw new RendezvousException("rank " + rank + ": rendezvous service at " + format(server) +
                " did not send " + waitingFor + " within " + formatMillis(timeout.toMillis()), ex);
        }
        if (null == line)
        {
            throw new RendezvousException("rank " + rank + ": rendezvous service at " + format(server) +
                " closed the connection before " + waitingFor);
        }
        return line;
    }

    void writeHandshakeLine(final String line) throws IOException
    {
        write(line);
    }

    Socket socket()
    {
        return socket;
    }

    void startReading()
    {
        reader.start();
    }

    private void readReplies()
    {
        try
        {
            String line;
            while (null != (line = RendezvousProtocol.readLine(in, RendezvousProtocol.MAX_LINE_BYTES)))
            {
                if (line.startsWith(DEAD + " "))
                {
                    onDead(line);
                }
                else
                {
                    replies.add(line);
                }
            }
            onLost("the service closed the connection");
        }
        catch (final IOException ex)
        {
            onLost(ex.toString());
        }
    }

    private void onDead(final String line)
    {
        final String[] parts = line.split(" ", 3);
        final int deadRank;
        try
        {
            deadRank = Integer.parseInt(parts[1]);
        }
        catch (final NumberFormatException ex)
        {
            LOG.warn("rank {}: ignoring malformed line from the rendezvous service: {}", rank, line);
            return;
        }
        final String reason = parts.length > 2 ? parts[2] : "no reason given";
        if (null == deadRanks.putIfAbsent(deadRank, reason))
        {
            LOG.debug("rank {}: rank {} died: {}", rank, deadRank, reason);
            for (final RendezvousListener listener : listeners)
            {
                notifySafely(() -> listener.onPeerDeath(deadRank, reason));
            }
        }
    }

    private void onLost(final String reason)
    {
        if (closing)
        {
            return;
        }
        if (null == failure)
        {
            failure = reason;
        }
        replies.add(CONNECTION_LOST);
        LOG.debug("rank {}: rendezvous connection to {} lost: {}", rank, format(server), reason);
        for (final RendezvousListener listener : listeners)
        {
            notifySafely(() -> listener.onServerLost(reason));
        }
    }

    private void notifySafely(final Runnable notification)
    {
        try
        {
            notification.run();
        }
        catch (final RuntimeException ex)
        {
            LOG.warn("rank {}: rendezvous listener failed", rank, ex);
        }
    }

    private void write(final String line) throws IOException
    {
        final byte[] bytes = (line + "\n").getBytes(StandardCharsets.UTF_8);
        synchronized (out)
        {
            out.write(bytes);
            out.flush();
        }
    }

    RendezvousException refused(final String what, final String reply)
    {
        final String reason = reply.startsWith(ERR + " ") ? reply.substring(ERR.length() + 1) :
            "unexpected reply '" + reply + "'";
        return new RendezvousException("rank " + rank + ": " + what + " failed: " + reason);
    }

    private void joinReader()
    {
        try
        {
            reader.join(CLOSE_TIMEOUT_MS);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }

    private void checkRank(final int peer)
    {
        if (peer < 0 || peer >= size)
        {
            throw new IllegalArgumentException("rank " + peer + " is not in [0, " + size + ")");
        }
    }

    static void closeQuietly(final Socket socket)
    {
        try
        {
            socket.close();
        }
        catch (final IOException ignore)
        {
        }
    }

    static String format(final InetSocketAddress address)
    {
        return LaunchEnvironment.formatAddress(address);
    }

    static String formatMillis(final long millis)
    {
        return millis % 1000 == 0 ? (millis / 1000) + " s" : millis + " ms";
    }
}
