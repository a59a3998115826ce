package io.stagecoach.node.agent;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.function.Consumer;

/**
 * The client side of the control socket: connects, sends one request line and reads the one answer line.
 */
public final class ControlClient
{
    private ControlClient()
    {
    }

    /**
     * @param socket  the agent's control socket.
     * @param request the request, one line.
     * @return the answer, without its line end.
     * @throws IOException where the agent cannot be reached or closes without answering.
     */
    public static String request(final Path socket, final String request) throws IOException
    {
        try (SocketChannel channel = send(socket, request))
        {
            final String answer = reader(channel).readLine();
            if (answer == null)
            {
                throw new IOException("the agent at " + socket + " closed without answering");
            }
            return answer;
        }
    }

    /**
     * Sends one request whose answer streams and hands on each line of the answer until the agent closes the
     * connection. The connection stays open for writing meanwhile: closing it tells the agent the client went away.
     *
     * @param socket  the agent's control socket.
     * @param request the request, one line.
     * @param lines   what takes each line, without its end.
     * @throws IOException where the agent cannot be reached or the connection breaks.
     */
    public static void stream(final Path socket, final String request, final Consumer<String> lines)
        throws IOException
    {
        try (SocketChannel channel = send(socket, request))
        {
            final BufferedReader reader = reader(channel);
            String line;
            while (null != (line = reader.readLine()))
            {
                lines.accept(line);
            }
        }
    }

    private static SocketChannel send(final Path socket, final String request) throws IOException
    {
        final SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX);
        try
        {
            channel.connect(UnixDomainSocketAddress.of(socket));
            final ByteBuffer bytes = ByteBuffer.wrap((request + "\n").getBytes(StandardCharsets.UTF_8));
            while (bytes.hasRemaining())
            {
                channel.write(bytes);
            }
            return channel;
        }
        catch (final IOException | RuntimeException ex)
        {
            channel.close();
            throw ex;
        }
    }

    private static BufferedReader reader(final SocketChannel channel)
    {
        return new BufferedReader(new InputStreamReader(Channels.newInputStream(channel), StandardCharsets.UTF_8));
    }
}
