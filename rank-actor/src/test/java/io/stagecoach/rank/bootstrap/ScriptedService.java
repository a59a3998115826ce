package io.stagecoach.rank.bootstrap;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * A rendezvous service played by a test, one line at a time, on a real loopback socket.
 */
final class ScriptedService implements AutoCloseable
{
    private static final int TIMEOUT_MS = 5_000;

    private final ServerSocket serverSocket;
    private Socket socket;
    private InputStream in;
    private OutputStream out;

    ScriptedService() throws IOException
    {
        serverSocket = new ServerSocket(0, 4, InetAddress.getByAddress(new byte[]{ 127, 0, 0, 1 }));
        serverSocket.setSoTimeout(TIMEOUT_MS);
    }

    InetSocketAddress address()
    {
        return new InetSocketAddress(serverSocket.getInetAddress(), serverSocket.getLocalPort());
    }

    ScriptedService accept() throws IOException
    {
        socket = serverSocket.accept();
        socket.setSoTimeout(TIMEOUT_MS);
        in = new BufferedInputStream(socket.getInputStream());
        out = socket.getOutputStream();
        return this;
    }

    String receive() throws IOException
    {
        final String line = RendezvousProtocol.readLine(in, RendezvousProtocol.MAX_LINE_BYTES);
        if (null == line)
        {
            throw new IOException("client closed the connection while the test waited for a line");
        }
        return line;
    }

    void send(final String line) throws IOException
    {
        out.write((line + "\n").getBytes(StandardCharsets.UTF_8));
        out.flush();
    }

    void dropConnection() throws IOException
    {
        socket.close();
    }

    public void close() throws IOException
    {
        if (null != socket)
        {
            socket.close();
        }
        serverSocket.close();
    }
}
