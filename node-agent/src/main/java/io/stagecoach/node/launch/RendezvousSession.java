package io.stagecoach.node.launch;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import io.stagecoach.rank.bootstrap.RendezvousProtocol;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One rank's connection to the rendezvous server: reads its requests on a thread of its own and hands them to the
 * shared {@link RendezvousState}; replies and pushes are written under the session's lock.
 */
final class RendezvousSession implements Runnable
{
    private static final Logger LOG = LoggerFactory.getLogger(RendezvousSession.class);

    private final Socket socket;
    private final RendezvousState state;
    private final OutputStream out;
    private int rank = -1;

    RendezvousSession(final Socket socket, final RendezvousState state) throws IOException
    {
        this.socket = socket;
        this.state = state;
        this.out = socket.getOutputStream();
    }

    int rank()
    {
        return rank;
    }

    void rank(final int rank)
    {
        this.rank = rank;
    }

    public void run()
    {
        boolean finished = false;
        try
        {
            final InputStream in = new BufferedInputStream(socket.getInputStream());
            String line;
            while (!finished && null != (line = RendezvousProtocol.readLine(in, RendezvousProtocol.MAX_LINE_BYTES)))
            {
                finished = handle(line);
            }
        }
        catch (final IOException ex)
        {
            LOG.debug("rendezvous connection of rank {} failed: {}", rank, ex.toString());
        }
        finally
        {
            if (!finished)
            {
                deliver(state.connectionLost(this));
            }
            close();
        }
    }

    void send(final String line)
    {
        final byte[] bytes = (line + "\n").getBytes(StandardCharsets.UTF_8);
        synchronized (out)
        {
            try
            {
                out.write(bytes);
                out.flush();
            }
            catch (final IOException ex)
            {
                LOG.debug("could not write to rank {}: {}", rank, ex.toString());
            }
        }
    }

    void close()
    {
        try
        {
            socket.close();
        }
        catch (final IOException ignore)
        {
        }
    }

    private boolean handle(final String line)
    {
        final List<RendezvousState.Delivery> deliveries = new ArrayList<>(4);
        final boolean finished = state.handle(this, line, deliveries);
        deliver(deliveries);
        return finished;
    }

    static void deliver(final List<RendezvousState.Delivery> deliveries)
    {
        for (final RendezvousState.Delivery delivery : deliveries)
        {
            delivery.to().send(delivery.line());
        }
    }
}
