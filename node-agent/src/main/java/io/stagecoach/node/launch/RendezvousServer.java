package io.stagecoach.node.launch;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The rendezvous service of one job (PMI-like key exchange), on 127.0.0.1 only: ranks connect with
 * {@link io.stagecoach.rank.bootstrap.RendezvousClient}, put keys, fence and get what their peers put. The launcher
 * tells it when rank processes exit so that it can push {@code DEAD} to the surviving ranks and fail fences that
 * can no longer complete. The protocol is documented in {@code docs/wire-protocol.md}, section "Rendezvous".
 */
public final class RendezvousServer implements AutoCloseable
{
    /**
     * How long a rank that lost its connection without saying BYE may take to be reported by the launcher (with
     * its exit status) before the service reports it dead by itself.
     */
    public static final Duration DEFAULT_LOSS_GRACE = Duration.ofSeconds(1);

    private static final Logger LOG = LoggerFactory.getLogger(RendezvousServer.class);
    private static final long JOIN_TIMEOUT_MS = 2_000;
    private static final byte[] LOOPBACK = { 127, 0, 0, 1 };

    private final String jobId;
    private final int size;
    private final ServerSocket serverSocket;
    private final ScheduledExecutorService timer;
    private final RendezvousState state;
    private final Thread acceptor;
    private final AtomicInteger sessionCount = new AtomicInteger();
    private volatile boolean closed;

    private RendezvousServer(final String jobId, final int size, final Duration lossGrace) throws IOException
    {
        this.jobId = jobId;
        this.size = size;
        this.serverSocket = new ServerSocket(0, Math.max(50, size), InetAddress.getByAddress(LOOPBACK));
        this.timer = Executors.newSingleThreadScheduledExecutor(
            runnable -> daemon(runnable, "stagecoach-rendezvous-timer"));
        this.state = new RendezvousState(jobId, size, lossGrace.toMillis(), timer);
        this.acceptor = daemon(this::acceptConnections, "stagecoach-rendezvous-accept");
    }

    /**
     * Start a rendezvous service on an ephemeral port of 127.0.0.1.
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
     * Start a rendezvous service on an ephemeral port of 127.0.0.1.
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
        Objects.requireNonNull(jobId, "jobId");
        if (size < 1)
        {
            throw new IllegalArgumentException("a job needs at least one rank, not " + size);
        }
        if (jobId.isEmpty() || jobId.chars().anyMatch(c -> c <= ' '))
        {
            throw new IllegalArgumentException("job id must be a non-empty word: '" + jobId + "'");
        }
        final RendezvousServer server = new RendezvousServer(jobId, size, lossGrace);
        server.acceptor.start();
        LOG.debug("rendezvous service of job {} ({} ranks) listening on {}", jobId, size, server.addressText());
        return server;
    }

    /**
     * @return where ranks connect: 127.0.0.1 and the bound port.
     */
    public InetSocketAddress address()
    {
        return new InetSocketAddress(serverSocket.getInetAddress(), serverSocket.getLocalPort());
    }

    /**
     * @return the address as {@code 127.0.0.1:port}, the form of {@code STAGECOACH_RENDEZVOUS}.
     */
    public String addressText()
    {
        return serverSocket.getInetAddress().getHostAddress() + ":" + serverSocket.getLocalPort();
    }

    /**
     * @return the job served.
     */
    public String jobId()
    {
        return jobId;
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
        try
        {
            serverSocket.close();
        }
        catch (final IOException ignore)
        {
        }
        state.close().forEach(RendezvousSession::close);
        timer.shutdownNow();
        try
        {
            acceptor.join(JOIN_TIMEOUT_MS);
            timer.awaitTermination(JOIN_TIMEOUT_MS, TimeUnit.MILLISECONDS);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }

    private void acceptConnections()
    {
        while (!closed)
        {
            try
            {
                final Socket socket = serverSocket.accept();
                socket.setTcpNoDelay(true);
                final RendezvousSession session = new RendezvousSession(socket, state);
                daemon(session, "stagecoach-rendezvous-session-" + sessionCount.incrementAndGet()).start();
            }
            catch (final SocketException ex)
            {
                if (!closed)
                {
                    LOG.warn("rendezvous service of job {} stopped accepting: {}", jobId, ex.toString());
                }
                return;
            }
            catch (final IOException ex)
            {
                LOG.warn("rendezvous service of job {} failed to accept a connection: {}", jobId, ex.toString());
            }
        }
    }

    private static Thread daemon(final Runnable runnable, final String name)
    {
        final Thread thread = new Thread(runnable, name);
        thread.setDaemon(true);
        return thread;
    }
}
