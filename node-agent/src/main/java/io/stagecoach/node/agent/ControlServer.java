package io.stagecoach.node.agent;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Iterator;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The agent's control socket: a Unix domain socket in the agent's private folder, mode 0600 (0660 with group
 * access), served by one thread. A client sends one request per line and gets one line back; a request longer than
 * {@value #MAX_REQUEST_BYTES} bytes, or a client silent for the idle timeout, gets one error line and is closed, and
 * clients beyond {@value #MAX_CLIENTS} are refused the same way.
 */
public final class ControlServer implements AutoCloseable
{
    /** The longest request line, without its line end: room for a job's command, class path and variables. */
    public static final int MAX_REQUEST_BYTES = 256 * 1024;
    /** The most clients served at once. */
    public static final int MAX_CLIENTS = 32;
    /** How long a client may stay silent by default. */
    public static final Duration IDLE_TIMEOUT = Duration.ofSeconds(10);

    private static final Logger LOG = LoggerFactory.getLogger(ControlServer.class);
    private static final Set<PosixFilePermission> OWNER_MODE = PosixFilePermissions.fromString("rw-------");
    private static final Set<PosixFilePermission> GROUP_MODE = PosixFilePermissions.fromString("rw-rw----");

    private final Path socket;
    private final ControlRequests requests;
    private final long idleTimeoutNs;
    private final ServerSocketChannel server;
    private final Selector selector;
    private final Thread thread;
    private volatile boolean running = true;

    private ControlServer(final Path socket, final boolean groupAccess, final ControlRequests requests,
        final Duration idleTimeout) throws IOException
    {
        this.socket = socket;
        this.requests = requests;
        this.idleTimeoutNs = idleTimeout.toNanos();
        server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        try
        {
            server.bind(UnixDomainSocketAddress.of(socket));
            Files.setPosixFilePermissions(socket, groupAccess ? GROUP_MODE : OWNER_MODE);
            server.configureBlocking(false);
            selector = Selector.open();
            server.register(selector, SelectionKey.OP_ACCEPT);
        }
        catch (final IOException | RuntimeException ex)
        {
            server.close();
            Files.deleteIfExists(socket);
            throw ex;
        }
        thread = new Thread(this::serve, "stagecoach-control");
        thread.setDaemon(true);
        thread.start();
    }

    /**
     * Opens the socket and serves it.
     *
     * @param socket      where; nothing may be there.
     * @param groupAccess true for mode 0660, false for 0600.
     * @param requests    what answers.
     * @param idleTimeout how long a client may stay silent.
     * @return the server.
     * @throws IOException where the socket cannot be made.
     */
    public static ControlServer open(final Path socket, final boolean groupAccess, final ControlRequests requests,
        final Duration idleTimeout) throws IOException
    {
        return new ControlServer(socket, groupAccess, requests, idleTimeout);
    }

    /**
     * @return the socket's path.
     */
    public Path socket()
    {
        return socket;
    }

    /**
     * Stops serving, closes every client and removes the socket.
     */
    public void close()
    {
        running = false;
        selector.wakeup();
        try
        {
            thread.join(2000);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
        try
        {
            server.close();
            Files.deleteIfExists(socket);
        }
        catch (final IOException ex)
        {
            LOG.warn("control socket {}: {}", socket, ex.toString());
        }
    }

    private void serve()
    {
        try
        {
            while (running)
            {
                selector.select(250);
                flushStreams();
                final Iterator<SelectionKey> keys = selector.selectedKeys().iterator();
                while (keys.hasNext())
                {
                    final SelectionKey key = keys.next();
                    keys.remove();
                    if (!key.isValid())
                    {
                        continue;
                    }
                    if (key.isAcceptable())
                    {
                        accept();
                    }
                    else
                    {
                        service(key);
                    }
                }
                expireIdle();
            }
        }
        catch (final IOException | RuntimeException ex)
        {
            LOG.error("control socket {} stopped: {}", socket, ex.toString());
        }
        finally
        {
            for (final SelectionKey key : selector.keys())
            {
                closeQuietly(key);
            }
            try
            {
                selector.close();
            }
            catch (final IOException ex)
            {
                LOG.debug("control socket {}: {}", socket, ex.toString());
            }
        }
    }

    private void accept() throws IOException
    {
        final SocketChannel client = server.accept();
        if (client == null)
        {
            return;
        }
        client.configureBlocking(false);
        final Client state = new Client(System.nanoTime() + idleTimeoutNs);
        final SelectionKey key = client.register(selector, SelectionKey.OP_READ, state);
        if (selector.keys().size() - 1 > MAX_CLIENTS)
        {
            fail(key, "error: busy, " + MAX_CLIENTS + " clients are connected already");
        }
    }

    private void service(final SelectionKey key)
    {
        final Client client = (Client)key.attachment();
        final SocketChannel channel = (SocketChannel)key.channel();
        try
        {
            if (key.isWritable())
            {
                flush(key, client, channel);
            }
            if (key.isValid() && key.isReadable())
            {
                if (channel.read(client.in) < 0)
                {
                    closeQuietly(key);
                    return;
                }
                client.deadlineNs = System.nanoTime() + idleTimeoutNs;
                handleLines(key, client);
            }
        }
        catch (final IOException ex)
        {
            closeQuietly(key);
        }
    }

    private void handleLines(final SelectionKey key, final Client client) throws IOException
    {
        if (null != client.stream)
        {
            client.in.clear();
            return;
        }
        while (!client.closing)
        {
            final ByteBuffer in = client.in;
            int end = -1;
            for (int i = 0; i < in.position(); i++)
            {
                if (in.get(i) == '\n')
                {
                    end = i;
                    break;
                }
            }
            if (end < 0)
            {
                if (in.position() > MAX_REQUEST_BYTES)
                {
                    fail(key, "error: request longer than " + MAX_REQUEST_BYTES + " bytes");
                }
                return;
            }
            if (end > MAX_REQUEST_BYTES)
            {
                fail(key, "error: request longer than " + MAX_REQUEST_BYTES + " bytes");
                return;
            }
            final byte[] line = new byte[end];
            in.flip();
            in.get(line);
            in.get();
            in.compact();
            final String request = new String(line, StandardCharsets.UTF_8).strip();
            if (startStream(key, client, request))
            {
                return;
            }
            String answer;
            try
            {
                answer = requests.answer(request);
            }
            catch (final RuntimeException ex)
            {
                answer = "error: " + ex;
            }
            send(key, client, answer.replace('\n', ' '), false);
        }
    }

    private boolean startStream(final SelectionKey key, final Client client, final String request)
    {
        final Stream stream = new Stream(key, client);
        client.stream = stream;
        try
        {
            if (requests.stream(request, stream))
            {
                return true;
            }
        }
        catch (final RuntimeException ex)
        {
            stream.send("error: " + ex);
            stream.close();
            return true;
        }
        client.stream = null;
        return false;
    }

    private void flushStreams()
    {
        for (final SelectionKey key : selector.keys())
        {
            if (key.isValid() && key.attachment() instanceof Client client && null != client.stream)
            {
                try
                {
                    client.stream.drain(key);
                }
                catch (final IOException ex)
                {
                    closeQuietly(key);
                }
            }
        }
    }

    private void fail(final SelectionKey key, final String message) throws IOException
    {
        send(key, (Client)key.attachment(), message, true);
    }

    private void send(final SelectionKey key, final Client client, final String line, final boolean thenClose)
        throws IOException
    {
        client.out = append(client.out, (line + "\n").getBytes(StandardCharsets.UTF_8));
        client.closing |= thenClose;
        flush(key, client, (SocketChannel)key.channel());
    }

    /**
     * @param pending bytes not written yet, between its position and limit.
     * @param bytes   to write after them.
     * @return the pending bytes and these, in the same buffer where they fit, else in one twice as large: a client
     * that reads slowly costs copies in proportion to its backlog, not to its square.
     */
    static ByteBuffer append(final ByteBuffer pending, final byte[] bytes)
    {
        ByteBuffer out = pending;
        if (out.capacity() - out.limit() < bytes.length)
        {
            out.compact();
            if (out.remaining() < bytes.length)
            {
                final ByteBuffer larger =
                    ByteBuffer.allocate(Math.max(2 * out.capacity(), out.position() + bytes.length));
                out.flip();
                larger.put(out);
                out = larger;
            }
            out.put(bytes).flip();
            return out;
        }
        final int position = out.position();
        out.position(out.limit()).limit(out.capacity());
        out.put(bytes);
        out.limit(out.position()).position(position);
        return out;
    }

    private void flush(final SelectionKey key, final Client client, final SocketChannel channel) throws IOException
    {
        channel.write(client.out);
        if (client.out.hasRemaining())
        {
            key.interestOps(SelectionKey.OP_WRITE);
        }
        else if (client.closing)
        {
            closeQuietly(key);
        }
        else
        {
            key.interestOps(SelectionKey.OP_READ);
        }
    }

    private void expireIdle()
    {
        final long nowNs = System.nanoTime();
        for (final SelectionKey key : selector.keys())
        {
            if (key.isValid() && key.attachment() instanceof Client client && null == client.stream &&
                nowNs - client.deadlineNs > 0)
            {
                if (client.closing)
                {
                    closeQuietly(key);
                    continue;
                }
                try
                {
                    client.deadlineNs = nowNs + idleTimeoutNs;
                    fail(key, "error: no request for " + idleTimeoutNs / 1_000_000 + " ms, closing");
                }
                catch (final IOException ex)
                {
                    closeQuietly(key);
                }
            }
        }
    }

    private static void closeQuietly(final SelectionKey key)
    {
        if (key.attachment() instanceof Client client && null != client.stream)
        {
            client.stream.gone();
        }
        key.cancel();
        try
        {
            key.channel().close();
        }
        catch (final IOException ex)
        {
            LOG.debug("closing a control client: {}", ex.toString());
        }
    }

    /**
     * One client's buffers and deadline.
     */
    private static final class Client
    {
        private final ByteBuffer in = ByteBuffer.allocate(MAX_REQUEST_BYTES + 2);
        private ByteBuffer out = ByteBuffer.allocate(0);
        private long deadlineNs;
        private boolean closing;
        private Stream stream;

        private Client(final long deadlineNs)
        {
            this.deadlineNs = deadlineNs;
        }
    }

    /**
     * A streaming answer: lines queued by any thread, moved to the client's buffer by the socket's thread.
     */
    private final class Stream implements ControlStream
    {
        private static final String END = "\u0000end";

        private final SelectionKey key;
        private final Client client;
        private final Queue<String> lines = new ConcurrentLinkedQueue<>();
        private volatile boolean closed;
        private Runnable goneHandler;
        /** The client went away while the answer was open: a handler given later runs at once. */
        private boolean clientGone;
        private boolean gone;

        private Stream(final SelectionKey key, final Client client)
        {
            this.key = key;
            this.client = client;
        }

        public void send(final String line)
        {
            if (!closed)
            {
                lines.add(line.replace('\n', ' '));
                selector.wakeup();
            }
        }

        public void close()
        {
            if (!closed)
            {
                closed = true;
                lines.add(END);
                selector.wakeup();
            }
        }

        public void onClientGone(final Runnable handler)
        {
            final boolean already;
            synchronized (this)
            {
                goneHandler = handler;
                already = clientGone;
            }
            if (already)
            {
                runGoneHandler(handler);
            }
        }

        private void drain(final SelectionKey ignored) throws IOException
        {
            String line;
            while (null != (line = lines.poll()))
            {
                if (END.equals(line))
                {
                    gone = true;
                    client.closing = true;
                    flush(key, client, (SocketChannel)key.channel());
                    return;
                }
                ControlServer.this.send(key, client, line, false);
            }
        }

        private void gone()
        {
            if (gone)
            {
                return;
            }
            gone = true;
            closed = true;
            final Runnable handler;
            synchronized (this)
            {
                clientGone = true;
                handler = goneHandler;
            }
            if (null != handler)
            {
                runGoneHandler(handler);
            }
        }

        private void runGoneHandler(final Runnable handler)
        {
            try
            {
                handler.run();
            }
            catch (final RuntimeException ex)
            {
                LOG.warn("control socket {}: {}", socket, ex.toString());
            }
        }
    }
}
