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
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The control socket's protocol: one answer line per request line, its modes, and the bounds on request length and
 * silence; and the status answer's JSON and table.
 */
@Timeout(30)
class ControlServerTest
{
    @Test
    void shouldAnswerEachLineAndKeepTheSocketToItsOwner(@TempDir final Path folder) throws IOException
    {
        final Path socket = StateFolder.prepare(folder.resolve("state"), false);
        try (ControlServer server = ControlServer.open(socket, false, request -> "echo " + request,
            ControlServer.IDLE_TIMEOUT))
        {
            assertEquals(socket, server.socket());
            assertEquals("rw-------", mode(socket));
            assertEquals("rwx------", mode(folder.resolve("state")));
            assertEquals("echo status", ControlClient.request(socket, "status"));
            try (Connection connection = new Connection(socket))
            {
                connection.send("one\ntwo\n");
                assertEquals("echo one", connection.readLine());
                assertEquals("echo two", connection.readLine());
            }
        }
        assertFalse(Files.exists(socket, LinkOption.NOFOLLOW_LINKS), "closing removes the socket");
    }

    @Test
    void shouldOpenTheSocketToTheGroupOnlyWhereAsked(@TempDir final Path folder) throws IOException
    {
        final Path socket = StateFolder.prepare(folder.resolve("state"), true);
        try (ControlServer server = ControlServer.open(socket, true, request -> "ok", ControlServer.IDLE_TIMEOUT))
        {
            assertEquals(socket, server.socket());
            assertEquals("rw-rw----", mode(socket));
            assertEquals("rwx--x---", mode(folder.resolve("state")));
        }
    }

    @Test
    void shouldCloseARequestLongerThanTheLimitWithOneErrorLine(@TempDir final Path folder) throws IOException
    {
        final Path socket = StateFolder.prepare(folder, false);
        try (ControlServer server = ControlServer.open(socket, false, request -> "ok", ControlServer.IDLE_TIMEOUT);
            Connection connection = new Connection(socket))
        {
            assertEquals(socket, server.socket());
            assertEquals("ok", request(connection, "x".repeat(ControlServer.MAX_REQUEST_BYTES)));
            connection.send("y".repeat(ControlServer.MAX_REQUEST_BYTES + 1));
            assertEquals("error: request longer than 262144 bytes", connection.readLine());
            assertNull(connection.readLine(), "then closed");
        }
    }

    @Test
    void shouldStreamAnAnswerFromAnotherThreadWithoutIdleTimeoutAndTellWhenTheClientGoes(@TempDir final Path folder)
        throws Exception
    {
        final Path socket = StateFolder.prepare(folder, false);
        final java.util.concurrent.CountDownLatch gone = new java.util.concurrent.CountDownLatch(1);
        final java.util.concurrent.atomic.AtomicReference<ControlStream> streams =
            new java.util.concurrent.atomic.AtomicReference<>();
        final ControlRequests requests = new ControlRequests()
        {
            public String answer(final String request)
            {
                return "single " + request;
            }

            public boolean stream(final String request, final ControlStream stream)
            {
                if (!request.startsWith("follow"))
                {
                    return false;
                }
                stream.onClientGone(gone::countDown);
                streams.set(stream);
                new Thread(() ->
                {
                    stream.send("first");
                    stream.send("second\nline");
                }).start();
                return true;
            }
        };
        try (ControlServer server = ControlServer.open(socket, false, requests, Duration.ofMillis(300)))
        {
            assertEquals(socket, server.socket());
            try (Connection connection = new Connection(socket))
            {
                assertEquals("single ping", request(connection, "ping"));
                assertEquals("first", request(connection, "follow"));
                assertEquals("second line", connection.readLine());
                Thread.sleep(700);
                streams.get().send("after the idle timeout");
                assertEquals("after the idle timeout", connection.readLine());
            }
            assertTrue(gone.await(5, java.util.concurrent.TimeUnit.SECONDS), "told that the client went away");
            try (Connection connection = new Connection(socket))
            {
                assertEquals("first", request(connection, "follow"));
                assertEquals("second line", connection.readLine());
                streams.get().close();
                assertNull(connection.readLine(), "closed by the answer");
            }
        }
    }

    @Test
    void shouldTellAHandlerGivenAfterTheClientWentAwayAtOnce(@TempDir final Path folder) throws Exception
    {
        final Path socket = StateFolder.prepare(folder, false);
        final java.util.concurrent.CompletableFuture<ControlStream> streams =
            new java.util.concurrent.CompletableFuture<>();
        final ControlRequests requests = new ControlRequests()
        {
            public String answer(final String request)
            {
                return "single " + request;
            }

            public boolean stream(final String request, final ControlStream stream)
            {
                streams.complete(stream);
                return true;
            }
        };
        try (ControlServer server = ControlServer.open(socket, false, requests, Duration.ofSeconds(30)))
        {
            try (Connection connection = new Connection(server.socket()))
            {
                connection.send("submit a job\n");
                streams.get(5, java.util.concurrent.TimeUnit.SECONDS);
            }
            Thread.sleep(500);
            final java.util.concurrent.CountDownLatch gone = new java.util.concurrent.CountDownLatch(1);

            streams.get().onClientGone(gone::countDown);

            assertTrue(gone.await(5, java.util.concurrent.TimeUnit.SECONDS), "a submitter gone before its job was " +
                "set up is told at once (the job would run on with nobody attached)");
        }
    }

    @Test
    void shouldKeepTheBacklogOfASlowClientInOrderInOneGrowingBuffer()
    {
        ByteBuffer pending = ByteBuffer.allocate(0);
        final StringBuilder expected = new StringBuilder();
        final StringBuilder written = new StringBuilder();
        for (int i = 0; i < 10_000; i++)
        {
            final String line = "line " + i + "\n";
            expected.append(line);
            pending = ControlServer.append(pending, line.getBytes(StandardCharsets.UTF_8));
            if (i % 7 == 0)
            {
                final byte[] some = new byte[Math.min(5, pending.remaining())];
                pending.get(some);
                written.append(new String(some, StandardCharsets.UTF_8));
            }
        }
        final byte[] rest = new byte[pending.remaining()];
        pending.get(rest);
        written.append(new String(rest, StandardCharsets.UTF_8));

        assertEquals(expected.toString(), written.toString());
        assertTrue(pending.capacity() < 4 * expected.length(), "grown by doubling: " + pending.capacity());
    }

    @Test
    void shouldCloseASilentClientWithOneErrorLine(@TempDir final Path folder) throws IOException
    {
        final Path socket = StateFolder.prepare(folder, false);
        try (ControlServer server = ControlServer.open(socket, false, request -> "ok", Duration.ofMillis(300));
            Connection connection = new Connection(socket))
        {
            assertEquals(socket, server.socket());
            connection.send("half a request");
            final long startNs = System.nanoTime();
            assertEquals("error: no request for 300 ms, closing", connection.readLine());
            assertNull(connection.readLine(), "then closed");
            assertTrue(System.nanoTime() - startNs < Duration.ofSeconds(5).toNanos());
        }
    }

    @Test
    void shouldRefuseASecondAgentOnAServedSocketAndReplaceAStaleOne(@TempDir final Path folder) throws IOException
    {
        final Path socket = StateFolder.prepare(folder, false);
        try (ControlServer server = ControlServer.open(socket, false, request -> "ok", ControlServer.IDLE_TIMEOUT))
        {
            assertEquals(socket, server.socket());
            final IOException ex = assertThrows(IOException.class, () -> StateFolder.prepare(folder, false));
            assertTrue(ex.getMessage().contains("another agent serves"), ex.getMessage());
        }
        Files.writeString(socket, "stale");
        assertEquals(socket, StateFolder.prepare(folder, false));
        assertFalse(Files.exists(socket));
    }

    @Test
    void shouldCarryTheStatusThroughJsonAndPrintItAsATable()
    {
        final ClusterStatus status = new ClusterStatus("node-a", "pekko://stagecoach@10.0.0.1:25520", List.of(
            new MemberView("node-a", "pekko://stagecoach@10.0.0.1:25520", "Up", true, 8,
                List.of("dc-default", "gpus-8", "node-node-a")),
            new MemberView("node-\"b\"", "pekko://stagecoach@10.0.0.2:25520", "Joining", false, -1, List.of())));

        final ClusterStatus read = ClusterStatus.parse(status.toJson());

        assertEquals(status, read);
        assertFalse(status.toJson().contains("\n"));
        final java.io.StringWriter table = new java.io.StringWriter();
        read.printTable(new java.io.PrintWriter(table));
        final String[] lines = table.toString().split("\n");
        assertTrue(lines[0].matches("\\s+NODE\\s+ADDRESS\\s+STATUS\\s+REACHABLE\\s+GPUS"), lines[0]);
        assertTrue(lines[1].matches("\\* node-a\\s+pekko://stagecoach@10.0.0.1:25520\\s+Up\\s+yes\\s+8"), lines[1]);
        assertTrue(lines[2].matches("\\s+node-\"b\"\\s+pekko://stagecoach@10.0.0.2:25520\\s+Joining\\s+no\\s+\\?"),
            lines[2]);
        assertEquals(8, MemberView.gpusOf(List.of("dc-default", "gpus-8")));
        assertEquals("node-a", MemberView.nodeOf(List.of("node-node-a")));
    }

    private static String request(final Connection connection, final String line) throws IOException
    {
        connection.send(line + "\n");
        return connection.readLine();
    }

    private static String mode(final Path path) throws IOException
    {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(path, LinkOption.NOFOLLOW_LINKS));
    }

    /**
     * A raw client connection.
     */
    private static final class Connection implements AutoCloseable
    {
        private final SocketChannel channel;
        private final BufferedReader reader;

        private Connection(final Path socket) throws IOException
        {
            channel = SocketChannel.open(StandardProtocolFamily.UNIX);
            channel.connect(UnixDomainSocketAddress.of(socket));
            reader = new BufferedReader(new InputStreamReader(Channels.newInputStream(channel),
                StandardCharsets.UTF_8));
        }

        private void send(final String text) throws IOException
        {
            final ByteBuffer bytes = ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8));
            while (bytes.hasRemaining())
            {
                channel.write(bytes);
            }
        }

        private String readLine() throws IOException
        {
            return reader.readLine();
        }

        public void close() throws IOException
        {
            channel.close();
        }
    }
}
