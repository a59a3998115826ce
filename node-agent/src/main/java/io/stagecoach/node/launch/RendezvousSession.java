package io.stagecoach.node.launch;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.List;

import io.stagecoach.rank.bootstrap.RendezvousProtocol;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One connection to the rendezvous server, non-blocking: the bytes of the line being read, the lines waiting to be
 * written, the challenge it was sent and, once its {@code HELLO} is accepted, its rank. Lines are read on the
 * server's selector thread; {@link #send(String)} may be called from any thread and writes at once what the socket
 * takes, queuing the rest for the selector thread.
 */
final class RendezvousSession
{
    /**
     * Most bytes queued for a connection that does not read them before it is closed: a few of the longest replies.
     */
    static final int MAX_QUEUED_BYTES = 4 * RendezvousProtocol.MAX_LINE_BYTES;

    private static final Logger LOG = LoggerFactory.getLogger(RendezvousSession.class);

    /**
     * Told of each complete line read.
     */
    interface LineHandler
    {
        /**
         * @param session the line came on.
         * @param line    without its terminator.
         */
        void onLine(RendezvousSession session, String line);
    }

    private final SocketChannel channel;
    private final RendezvousState state;
    private final String challenge;
    private final long helloDeadlineNs;
    private final ArrayDeque<ByteBuffer> outbound = new ArrayDeque<>();
    private SelectionKey key;
    private byte[] line = new byte[128];
    private int lineLength;
    private long queuedBytes;
    private boolean finishing;
    private boolean closed;
    private volatile int rank = -1;

    RendezvousSession(
        final SocketChannel channel, final RendezvousState state, final String challenge, final long helloDeadlineNs)
    {
        this.channel = channel;
        this.state = state;
        this.challenge = challenge;
        this.helloDeadlineNs = helloDeadlineNs;
    }

    void register(final Selector selector) throws IOException
    {
        key = channel.register(selector, SelectionKey.OP_READ, this);
    }

    int rank()
    {
        return rank;
    }

    void rank(final int rank)
    {
        this.rank = rank;
    }

    String challenge()
    {
        return challenge;
    }

    long helloDeadlineNs()
    {
        return helloDeadlineNs;
    }

    synchronized boolean isOpen()
    {
        return !closed;
    }

    /**
     * Read what has arrived and hand every complete line to the handler, until the connection is to be closed.
     *
     * @param buffer  to read into, the selector thread's.
     * @param handler of the lines.
     * @return false when the peer closed the connection.
     * @throws IOException when the connection failed.
     */
    boolean readLines(final ByteBuffer buffer, final LineHandler handler) throws IOException
    {
        buffer.clear();
        if (channel.read(buffer) < 0)
        {
            return false;
        }
        buffer.flip();
        while (buffer.hasRemaining() && !isFinishing())
        {
            final byte b = buffer.get();
            if (b == '\n')
            {
                handler.onLine(this, takeLine());
            }
            else if (lineLength == maxLineBytes())
            {
                send(RendezvousProtocol.ERR + " line longer than " + maxLineBytes() + " bytes");
                finish();
            }
            else
            {
                append(b);
            }
        }
        return true;
    }

    /**
     * Write a line, or queue what the socket does not take now; a connection that lets more than
     * {@link #MAX_QUEUED_BYTES} pile up is closed.
     *
     * @param text the line, without its terminator.
     */
    void send(final String text)
    {
        final ByteBuffer bytes = ByteBuffer.wrap((text + "\n").getBytes(StandardCharsets.UTF_8));
        boolean broken = false;
        synchronized (this)
        {
            if (closed)
            {
                return;
            }
            try
            {
                broken = !writeOrQueue(bytes);
            }
            catch (final IOException | IllegalStateException ex)
            {
                LOG.debug("could not write to rank {}: {}", rank, ex.toString());
                broken = true;
            }
        }
        if (broken)
        {
            close();
        }
    }

    /**
     * Write what is queued, on the selector thread when the socket can take more.
     *
     * @throws IOException when the connection failed.
     */
    void flush() throws IOException
    {
        final boolean done;
        synchronized (this)
        {
            while (!outbound.isEmpty() && writeHead())
            {
                outbound.poll();
            }
            if (outbound.isEmpty() && !closed)
            {
                key.interestOps(finishing ? 0 : SelectionKey.OP_READ);
            }
            done = outbound.isEmpty() && finishing;
        }
        if (done)
        {
            close();
        }
    }

    /**
     * Close the connection once what is queued has been written; read nothing more from it.
     */
    void finish()
    {
        final boolean flushed;
        synchronized (this)
        {
            finishing = true;
            flushed = outbound.isEmpty();
            if (!flushed && !closed)
            {
                key.interestOps(SelectionKey.OP_WRITE);
            }
        }
        if (flushed)
        {
            close();
        }
    }

    /**
     * Close the connection now; the rank it belongs to, if any, has lost its connection unless it said BYE.
     */
    void close()
    {
        synchronized (this)
        {
            if (closed)
            {
                return;
            }
            closed = true;
            outbound.clear();
            try
            {
                channel.close();
            }
            catch (final IOException ignore)
            {
            }
        }
        deliver(state.connectionLost(this));
    }

    static void deliver(final List<RendezvousState.Delivery> deliveries)
    {
        for (final RendezvousState.Delivery delivery : deliveries)
        {
            delivery.to().send(delivery.line());
        }
    }

    private boolean writeOrQueue(final ByteBuffer bytes) throws IOException
    {
        if (outbound.isEmpty())
        {
            channel.write(bytes);
        }
        if (!bytes.hasRemaining())
        {
            return true;
        }
        queuedBytes += bytes.remaining();
        if (queuedBytes > MAX_QUEUED_BYTES)
        {
            LOG.debug("rank {} does not read its replies ({} bytes queued), closing its connection", rank,
                queuedBytes);
            return false;
        }
        outbound.add(bytes);
        key.interestOps(key.interestOps() | SelectionKey.OP_WRITE);
        key.selector().wakeup();
        return true;
    }

    private boolean writeHead() throws IOException
    {
        final ByteBuffer head = outbound.peek();
        final int before = head.remaining();
        channel.write(head);
        queuedBytes -= before - head.remaining();
        return !head.hasRemaining();
    }

    private synchronized boolean isFinishing()
    {
        return finishing || closed;
    }

    private int maxLineBytes()
    {
        return rank < 0 ? RendezvousProtocol.MAX_HELLO_BYTES : RendezvousProtocol.MAX_LINE_BYTES;
    }

    private void append(final byte b)
    {
        if (lineLength == line.length)
        {
            line = Arrays.copyOf(line, Math.min(2 * line.length, RendezvousProtocol.MAX_LINE_BYTES));
        }
        line[lineLength++] = b;
    }

    private String takeLine()
    {
        final int length = lineLength > 0 && line[lineLength - 1] == '\r' ? lineLength - 1 : lineLength;
        final String text = new String(line, 0, length, StandardCharsets.UTF_8);
        lineLength = 0;
        if (line.length > RendezvousProtocol.MAX_HELLO_BYTES)
        {
            line = new byte[128];
        }
        return text;
    }
}
