package io.stagecoach.rank.bootstrap;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

import static io.stagecoach.rank.bootstrap.RendezvousClient.format;
import static io.stagecoach.rank.bootstrap.RendezvousClient.formatMillis;

/**
 * How a {@link RendezvousClient} gets connected within its timeout: it tries again while the service refuses
 * connections (not listening yet) or answers {@code BUSY}, then joins ({@link Handshake}).
 */
final class RendezvousConnector
{
    private static final long RETRY_PAUSE_MS = 50;

    private RendezvousConnector()
    {
    }

    static RendezvousClient join(
        final InetSocketAddress server,
        final String jobId,
        final JobSecret secret,
        final int rank,
        final int size,
        final Duration timeout)
    {
        checkArguments(server, jobId, rank, size);
        if (null != secret)
        {
            secret.loadAlgorithm();
        }
        final long deadlineNs = System.nanoTime() + timeout.toNanos();
        while (true)
        {
            final RendezvousClient client = tryJoin(server, jobId, secret, rank, size, timeout, deadlineNs);
            if (null != client)
            {
                return client;
            }
            if (System.nanoTime() - deadlineNs >= 0)
            {
                throw new RendezvousException("rank " + rank + ": rendezvous service at " + format(server) +
                    " stayed busy (at its limit of connections waiting for HELLO) for " +
                    formatMillis(timeout.toMillis()));
            }
            pause();
        }
    }

    private static RendezvousClient tryJoin(
        final InetSocketAddress server,
        final String jobId,
        final JobSecret secret,
        final int rank,
        final int size,
        final Duration timeout,
        final long deadlineNs)
    {
        final Socket socket = open(server, rank, timeout, deadlineNs);
        try
        {
            final RendezvousClient client = new RendezvousClient(server, rank, size, socket);
            if (!new Handshake(client, jobId, secret, timeout).perform(deadlineNs))
            {
                RendezvousClient.closeQuietly(socket);
                return null;
            }
            client.startReading();
            return client;
        }
        catch (final IOException | RuntimeException ex)
        {
            RendezvousClient.closeQuietly(socket);
            throw ex instanceof RendezvousException ? (RendezvousException)ex : new RendezvousException(
                "rank " + rank + " could not join the rendezvous service at " + format(server) + ": " + ex, ex);
        }
    }

    private static Socket open(
        final InetSocketAddress server, final int rank, final Duration timeout, final long deadlineNs)
    {
        IOException last = null;
        do
        {
            final Socket socket = new Socket();
            try
            {
                final long remainingMs = TimeUnit.NANOSECONDS.toMillis(deadlineNs - System.nanoTime());
                socket.setTcpNoDelay(true);
                socket.connect(server, (int)Math.max(1, Math.min(1_000, remainingMs)));
                return socket;
            }
            catch (final IOException ex)
            {
                RendezvousClient.closeQuietly(socket);
                last = ex;
                if (!(ex instanceof ConnectException || ex instanceof SocketTimeoutException))
                {
                    break;
                }
                pause();
            }
        }
        while (System.nanoTime() - deadlineNs < 0);
        throw new RendezvousException("rank " + rank + " could not connect to the rendezvous service at " +
            format(server) + " within " + formatMillis(timeout.toMillis()) + ": " + last, last);
    }

    private static void checkArguments(
        final InetSocketAddress server, final String jobId, final int rank, final int size)
    {
        Objects.requireNonNull(server, "server");
        if (null == server.getAddress())
        {
            throw new IllegalArgumentException("the rendezvous service's address " + server + " is not resolved: " +
                "it is a literal address (the loopback network's, or a node's for a job across nodes)");
        }
        if (size < 1 || rank < 0 || rank >= size)
        {
            throw new IllegalArgumentException("rank " + rank + " is not in [0, size=" + size + ")");
        }
        if (null == jobId || jobId.isEmpty() || jobId.chars().anyMatch(c -> c <= ' '))
        {
            throw new IllegalArgumentException("job id must be a non-empty word: '" + jobId + "'");
        }
    }

    private static void pause()
    {
        try
        {
            Thread.sleep(RETRY_PAUSE_MS);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new RendezvousException("interrupted while connecting to the rendezvous service", ex);
        }
    }
}
