package io.stagecoach.node.launch;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import io.stagecoach.rank.bootstrap.JobSecret;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The rendezvous service of one job (PMI-like key exchange), on 127.0.0.1 only: ranks connect with
 * {@link io.stagecoach.rank.bootstrap.RendezvousClient}, prove that they know the job's {@link #secret()}, put keys,
 * fence and get what their peers put. The launcher tells it when rank processes exit so that it can push
 * {@code DEAD} to the surviving ranks and fail fences that can no longer complete; ranks tell it which peer they lost
 * before they fail ({@code LOST}). Two threads serve any number of ranks: one for all connections, one for timers.
 * The protocol is documented in {@code docs/wire-protocol.md}, section "Rendezvous".
 */
public final class RendezvousServer implements JobEvents, AutoCloseable
{
    /**
     * How long a rank that lost its connection without saying BYE may take to be reported by the launcher (with
     * its exit status) before the service reports it dead by itself.
     */
    public static final Duration DEFAULT_LOSS_GRACE = Duration.ofSeconds(1);
    /**
     * How long a connection may take from being accepted to a complete {@code HELLO} before it is closed.
     */
    public static final Duration DEFAULT_HELLO_TIMEOUT = Duration.ofSeconds(5);
    /**
     * Connections that may wait for their {@code HELLO} at once beyond one per rank; more are answered {@code BUSY}.
     */
    public static final int WAITING_MARGIN = 16;

    private static final Logger LOG = LoggerFactory.getLogger(RendezvousServer.class);
    private static final long JOIN_TIMEOUT_MS = 2_000;
    private static final byte[] LOOPBACK = { 127, 0, 0, 1 };

    private final String jobId;
    private final int size;
    private final JobSecret secret;
    private final ServerSocketChannel serverChannel;
    private final ScheduledExecutorService timer;
    private final RendezvousState state;
    private final RendezvousLoop loop;
    private final Thread loopThread;
    private volatile boolean closed;

    private RendezvousServer(final String jobId, final int size, final Duration lossGrace, final Duration helloTimeout,
        final InetAddress bindAddress) throws IOException
    {
        this.jobId = jobId;
        this.size = size;
        this.secret = JobSecret.generate();
        this.serverChannel = ServerSocketChannel.open();
        this.timer = Executors.newSingleThreadScheduledExecutor(
            runnable -> daemon(runnable, "stagecoach-rendezvous-timer"));
        this.state = new RendezvousState(jobId, size, secret, lossGrace.toMillis(), timer);
        try
        {
            serverChannel.bind(new InetSocketAddress(bindAddress, 0), Math.max(50, size));
            this.loop = new RendezvousLoop(jobId, serverChannel, state, helloTimeout.toNanos(), size + WAITING_MARGIN);
        }
        catch (final IOException ex)
        {
            serverChannel.close();
            timer.shutdownNow();
            throw ex;
        }
        this.loopThread = daemon(loop, "stagecoach-rendezvous");
    }

    /**
     * Start a rendezvous service on an ephemeral port of 127.0.0.1, with a new secret.
     *
     * @param jobId the job served; ranks of other jobs are refused.
     * @param size  number of ranks in the job.
     * @return the running service.
     * @throws IOException when no port can be bound.
     */
    public static RendezvousServer start(final String jobId, final int size) throws IOException
    {
        return start(jobId, size, DEFAULT_LOSS_GRACE);
    }

    /**
     * Start a rendezvous service on an ephemeral port of 127.0.0.1, with a new secret.
     *
     * @param jobId     the job served; ranks of other jobs are refused.
     * @param size      number of ranks in the job.
     * @param lossGrace how long to wait for the launcher's report of a rank that lost its connection before
     *                  reporting it dead without an exit status.
     * @return the running service.
     * @throws IOException when no port can be bound.
     */
    public static RendezvousServer start(final String jobId, final int size, final Duration lossGrace)
        throws IOException
    {
        return start(jobId, size, lossGrace, DEFAULT_HELLO_TIMEOUT);
    }

    static RendezvousServer start(
        final String jobId, final int size, final Duration lossGrace, final Duration helloTimeout) throws IOException
    {
        return start(jobId, size, lossGrace, helloTimeout, InetAddress.getByAddress(LOOPBACK));
    }

    /**
     * Start a rendezvous service on an ephemeral port of the given address, with a new secret: the service of a job
     * whose ranks run on several nodes, reached at the address of the node it runs on. Ranks prove that they know the
     * secret before anything else, as on one node.
     *
     * @param jobId       the job served; ranks of other jobs are refused.
     * @param size        number of ranks in the job.
     * @param bindAddress where ranks of every node of the job reach it.
     * @return the running service.
     * @throws IOException when no port can be bound there.
     */
    public static RendezvousServer start(final String jobId, final int size, final InetAddress bindAddress)
        throws IOException
    {
        return start(jobId, size, DEFAULT_LOSS_GRACE, DEFAULT_HELLO_TIMEOUT, bindAddress);
    }

    private static RendezvousServer start(final String jobId, final int size, final Duration lossGrace,
        final Duration helloTimeout, final InetAddress bindAddress) throws IOException
    {
        Objects.requireNonNull(jobId, "jobId");
        if (size < 1)
        {
            throw new IllegalArgumentException("a job needs at least one rank, not " + size);
        }
        if (jobId.isEmpty() || jobId.chars().anyMatch(c -> c <= ' '))
        {
            throw new IllegalArgumentException("job id must be a non-empty word: '" + jobId + "'");
        }
        final RendezvousServer server = new RendezvousServer(jobId, size, lossGrace, helloTimeout, bindAddress);
        server.loopThread.start();
        LOG.debug("rendezvous service of job {} ({} ranks) listening on {}", jobId, size, server.addressText());
        return server;
    }

    /**
     * @return where ranks connect: 127.0.0.1 and the bound port.
     */
    public InetSocketAddress address()
    {
        return new InetSocketAddress(serverChannel.socket().getInetAddress(), serverChannel.socket().getLocalPort());
    }

    /**
     * @return the address as {@code 127.0.0.1:port}, the form of {@code STAGECOACH_RENDEZVOUS}.
     */
    public String addressText()
    {
        return serverChannel.socket().getInetAddress().getHostAddress() + ":" + serverChannel.socket().getLocalPort();
    }

    /**
     * @return the job served.
     */
    public String jobId()
    {
        return jobId;
    }

    /**
     * @return the job's secret, which its ranks need to join ({@code STAGECOACH_SECRET}); give it to them in their
     * environment, never on a command line.
     */
    public JobSecret secret()
    {
        return secret;
    }

    /**
     * @return number of ranks in the job.
     */
    public int size()
    {
        return size;
    }

    /**
     * @return ranks connected now.
     */
    public int connectedRanks()
    {
        return state.connectedRanks();
    }

    int ranksInFence()
    {
        return state.ranksInFence();
    }

    /**
     * @return the first peer each rank reported lost ({@code LOST}), by the reporting rank.
     */
    public Map<Integer, PeerLoss> lostPeers()
    {
        return state.lostPeers();
    }

    public String rendezvousAddress()
    {
        return addressText();
    }

    public String secretText()
    {
        return secret.text();
    }

    /**
     * A rank's process exited. A non-zero status reports it dead (see {@link #rankDied}); status 0 only marks it as
     * gone, which fails a fence it can no longer join.
     *
     * @param rank        that exited.
     * @param exitStatus  its exit status (128 + n for signal n).
     * @param description of the exit, e.g. {@code "exit status 137 (signal 9, SIGKILL)"}.
     */
    public void rankExited(final int rank, final int exitStatus, final String description)
    {
        RendezvousSession.deliver(state.rankExited(rank, exitStatus, description));
    }

    /**
     * Report a rank dead: push {@code DEAD <rank> <reason>} to every other connected rank (once per rank, also to
     * ranks that connect later) and fail the fence in progress unless the rank already arrived at it.
     *
     * @param rank   that died.
     * @param reason what was observed, for the message.
     */
    public void rankDied(final int rank, final String reason)
    {
        RendezvousSession.deliver(state.rankDied(rank, reason));
    }

    /**
     * Stop accepting, close every connection and stop the service's threads (waiting at most two seconds).
     */
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        state.close().forEach(RendezvousSession::close);
        loop.close();
        timer.shutdownNow();
        try
        {
            loopThread.join(JOIN_TIMEOUT_MS);
            timer.awaitTermination(JOIN_TIMEOUT_MS, TimeUnit.MILLISECONDS);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }

    private static Thread daemon(final Runnable runnable, final String name)
    {
        final Thread thread = new Thread(runnable, name);
        thread.setDaemon(true);
        return thread;
    }
}
