package io.stagecoach.node.launch;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.stagecoach.rank.bootstrap.JobSecret;
import io.stagecoach.rank.bootstrap.RendezvousProtocol;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The rendezvous server's one I/O thread: accepts connections, sends each its challenge, reads lines and hands them
 * to the {@link RendezvousState}, writes what could not be written at once, and closes connections that did not join
 * within the HELLO timeout. At most {@code maxWaiting} connections may wait for their HELLO at once; one more is
 * answered {@code BUSY} and closed, so that its client tries again.
 */
final class RendezvousLoop implements Runnable
{
    private static final Logger LOG = LoggerFactory.getLogger(RendezvousLoop.class);
    private static final long MAX_SELECT_MS = 1_000;
    private static final int READ_BYTES = 16 * 1024;

    private final String jobId;
    private final Selector selector;
    private final ServerSocketChannel serverChannel;
    private final RendezvousState state;
    private final long helloTimeoutNs;
    private final int maxWaiting;
    private final List<RendezvousSession> waiting = new ArrayList<>();
    private final ByteBuffer readBuffer = ByteBuffer.allocate(READ_BYTES);
    private volatile boolean closed;

    RendezvousLoop(
        final String jobId,
        final ServerSocketChannel serverChannel,
        final RendezvousState state,
        final long helloTimeoutNs,
        final int maxWaiting) throws IOException
    {
        this.jobId = jobId;
        this.selector = Selector.open();
        this.serverChannel = serverChannel;
        this.state = state;
        this.helloTimeoutNs = helloTimeoutNs;
        this.maxWaiting = maxWaiting;
        serverChannel.configureBlocking(false);
        serverChannel.register(selector, SelectionKey.OP_ACCEPT);
    }

    public void run()
    {
        try
        {
            while (!closed)
            {
                selector.select(this::onReady, selectTimeoutMs());
                expireWaiting();
            }
        }
        catch (final IOException | ClosedSelectorException ex)
        {
            if (!closed)
            {
                LOG.warn("rendezvous service of job {} stopped: {}", jobId, ex.toString());
            }
        }
        finally
        {
            closeAll();
        }
    }

    void close()
    {
        closed = true;
        selector.wakeup();
    }

    private void onReady(final SelectionKey key)
    {
        if (key.isValid() && key.isAcceptable())
        {
            acceptAll();
            return;
        }
        final RendezvousSession session = (RendezvousSession)key.attachment();
        try
        {
            if (key.isValid() && key.isWritable())
            {
                session.flush();
            }
            if (key.isValid() && key.isReadable() && !session.readLines(readBuffer, this::onLine))
            {
                session.close();
            }
        }
        catch (final IOException ex)
        {
            LOG.debug("rendezvous connection of rank {} failed: {}", session.rank(), ex.toString());
            session.close();
        }
        catch (final RuntimeException ex)
        {
            LOG.warn("rendezvous service of job {} closed a connection of rank {} after an internal error: {}",
                jobId, session.rank(), ex.toString());
            LOG.debug("internal error", ex);
            session.close();
        }
    }

    private void onLine(final RendezvousSession session, final String line)
    {
        final List<RendezvousState.Delivery> deliveries = new ArrayList<>(4);
        final boolean finished = state.handle(session, line, deliveries);
        RendezvousSession.deliver(deliveries);
        if (finished)
        {
            session.finish();
        }
    }

    private void acceptAll()
    {
        try
        {
            SocketChannel channel;
            while (null != (channel = serverChannel.accept()))
            {
                channel.configureBlocking(false);
                channel.socket().setTcpNoDelay(true);
                admit(channel);
            }
        }
        catch (final IOException ex)
        {
            LOG.warn("rendezvous service of job {} failed to accept a connection: {}", jobId, ex.toString());
        }
    }

    private void admit(final SocketChannel channel) throws IOException
    {
        waiting.removeIf(session -> !session.isOpen() || session.rank() >= 0);
        if (waiting.size() >= maxWaiting)
        {
            LOG.debug("rendezvous service of job {}: {} connections wait for HELLO, refusing one more", jobId,
                waiting.size());
            refuseBusy(channel);
            return;
        }
        final RendezvousSession session = new RendezvousSession(
            channel, state, JobSecret.newChallenge(), System.nanoTime() + helloTimeoutNs);
        session.register(selector);
        waiting.add(session);
        session.send(RendezvousProtocol.CHALLENGE + " " + session.challenge());
    }

    private void refuseBusy(final SocketChannel channel)
    {
        final String line = RendezvousProtocol.BUSY + " " + maxWaiting + " connections wait for HELLO, the limit\n";
        try (channel)
        {
            channel.write(ByteBuffer.wrap(line.getBytes(StandardCharsets.UTF_8)));
        }
        catch (final IOException ex)
        {
            LOG.debug("could not refuse a connection: {}", ex.toString());
        }
    }

    private void expireWaiting()
    {
        final long nowNs = System.nanoTime();
        final Iterator<RendezvousSession> sessions = waiting.iterator();
        while (sessions.hasNext())
        {
            final RendezvousSession session = sessions.next();
            if (!session.isOpen() || session.rank() >= 0)
            {
                sessions.remove();
            }
            else if (nowNs - session.helloDeadlineNs() >= 0)
            {
                sessions.remove();
                session.send(RendezvousProtocol.ERR + " no HELLO within " +
                    Durations.format(TimeUnit.NANOSECONDS.toMillis(helloTimeoutNs)));
                session.finish();
            }
        }
    }

    private long selectTimeoutMs()
    {
        long timeoutNs = TimeUnit.MILLISECONDS.toNanos(MAX_SELECT_MS);
        final long nowNs = System.nanoTime();
        for (final RendezvousSession session : waiting)
        {
            timeoutNs = Math.min(timeoutNs, session.helloDeadlineNs() - nowNs);
        }
        return Math.max(1, TimeUnit.NANOSECONDS.toMillis(timeoutNs) + 1);
    }

    private void closeAll()
    {
        try
        {
            for (final SelectionKey key : new ArrayList<>(selector.keys()))
            {
                if (key.attachment() instanceof RendezvousSession session)
                {
                    session.close();
                }
            }
            selector.close();
            serverChannel.close();
        }
        catch (final IOException | ClosedSelectorException ex)
        {
            LOG.debug("closing the rendezvous service of job {}: {}", jobId, ex.toString());
        }
    }
}
