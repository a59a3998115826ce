package io.stagecoach.node.launch;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import io.stagecoach.rank.bootstrap.JobSecret;
import io.stagecoach.rank.bootstrap.RendezvousClient;
import io.stagecoach.rank.bootstrap.RendezvousException;
import io.stagecoach.rank.bootstrap.RendezvousProtocol;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Timeout(30)
class RendezvousServerTest
{
    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    private final List<AutoCloseable> resources = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception
    {
        for (int i = resources.size() - 1; i >= 0; i--)
        {
            resources.get(i).close();
        }
    }

    @Test
    void shouldExchangeKeysAmongSeveralRanksAcrossFences() throws Exception
    {
        final int size = 4;
        final RendezvousServer server = start("job1", size, RendezvousServer.DEFAULT_LOSS_GRACE);
        final List<CompletableFuture<List<String>>> ranks = new ArrayList<>();
        for (int rank = 0; rank < size; rank++)
        {
            final int me = rank;
            ranks.add(CompletableFuture.supplyAsync(() -> exchange(server, me, size)));
        }
        for (int rank = 0; rank < size; rank++)
        {
            assertEquals(List.of("endpoint of 0", "endpoint of 1", "endpoint of 2", "endpoint of 3", "round 2 of 3"),
                ranks.get(rank).get(20, TimeUnit.SECONDS), "rank " + rank);
        }
    }

    @Test
    void shouldPushDeadToTheOtherRanksAndFailTheirFenceNamingTheRank() throws Exception
    {
        final RendezvousServer server = start("job2", 3, RendezvousServer.DEFAULT_LOSS_GRACE);
        final RendezvousClient rank0 = connect(server, 0);
        final RendezvousClient rank1 = connect(server, 1);
        final RendezvousClient rank2 = connect(server, 2);
        final LinkedBlockingQueue<String> deaths0 = deaths(rank0);
        final LinkedBlockingQueue<String> deaths2 = deaths(rank2);
        final CompletableFuture<Void> fence0 = CompletableFuture.runAsync(() -> rank0.fence(TIMEOUT));
        final CompletableFuture<Void> fence2 = CompletableFuture.runAsync(() -> rank2.fence(TIMEOUT));
        awaitFenceArrivals(server, 2);

        final long startNs = System.nanoTime();
        server.rankDied(1, "exit status 137 (signal 9, SIGKILL)");

        assertEquals("1 exit status 137 (signal 9, SIGKILL)", deaths0.poll(2, TimeUnit.SECONDS));
        assertEquals("1 exit status 137 (signal 9, SIGKILL)", deaths2.poll(2, TimeUnit.SECONDS));
        assertTrue(System.nanoTime() - startNs < TimeUnit.SECONDS.toNanos(2));
        final String expected =
            "rank 0: fence 1 failed: fence 1 cannot complete: rank 1 died (exit status 137 (signal 9, SIGKILL))";
        assertEquals(expected, failureOf(fence0).getMessage());
        assertTrue(failureOf(fence2).getMessage().startsWith("rank 2: fence 1 failed: fence 1 cannot complete"));
        assertEquals(Map.of(), rank1.deadRanks(), "a dead rank is not told of its own death");

        final RendezvousException late = assertThrows(RendezvousException.class, () -> rank0.fence(TIMEOUT));
        assertTrue(late.getMessage().endsWith("fence 1 cannot complete: rank 1 died (exit status 137 (signal 9, " +
            "SIGKILL))"), late.getMessage());
    }

    @Test
    void shouldNameTheMissingRanksWhenAFenceTimesOut() throws Exception
    {
        final RendezvousServer server = start("job3", 3, RendezvousServer.DEFAULT_LOSS_GRACE);
        final RendezvousClient rank0 = connect(server, 0);
        connect(server, 1);

        final long startNs = System.nanoTime();
        final RendezvousException ex = assertThrows(RendezvousException.class,
            () -> rank0.fence(Duration.ofMillis(300)));
        final long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNs);

        assertEquals("rank 0: fence 1 failed: fence 1 timed out after 300 ms waiting for ranks 1, 2 (not connected) " +
            "(1 of 3 ranks arrived)", ex.getMessage());
        assertTrue(elapsedMs >= 290 && elapsedMs < 3_000, "fence gave up after " + elapsedMs + " ms");
    }

    @Test
    void shouldReportARankThatLostItsConnectionDeadAfterTheGrace() throws Exception
    {
        final RendezvousServer server = start("job4", 2, Duration.ofMillis(200));
        final RendezvousClient rank0 = connect(server, 0);
        final LinkedBlockingQueue<String> deaths = deaths(rank0);
        try (Socket raw = join(server, 1))
        {
            assertTrue(raw.isConnected());
        }

        assertEquals("1 lost its rendezvous connection", deaths.poll(5, TimeUnit.SECONDS));
    }

    @Test
    void shouldNotReportARankThatExitedNormallyButFailAFenceItCannotJoin() throws Exception
    {
        final RendezvousServer server = start("job5", 2, Duration.ofMillis(200));
        final RendezvousClient rank0 = connect(server, 0);
        final LinkedBlockingQueue<String> deaths = deaths(rank0);
        try (Socket raw = join(server, 1))
        {
            assertTrue(raw.isConnected());
        }
        server.rankExited(1, 0, "exited with status 0");

        assertNull(deaths.poll(600, TimeUnit.MILLISECONDS));
        final RendezvousException ex = assertThrows(RendezvousException.class, () -> rank0.fence(TIMEOUT));
        assertEquals("rank 0: fence 1 failed: fence 1 cannot complete: rank 1 exited with status 0", ex.getMessage());
    }

    @Test
    void shouldFailAFenceWhenARankLeavesAndTellLateRanksOfEarlierDeaths() throws Exception
    {
        final RendezvousServer server = start("job6", 3, RendezvousServer.DEFAULT_LOSS_GRACE);
        final RendezvousClient rank0 = connect(server, 0);
        final RendezvousClient rank1 = connect(server, 1);
        final CompletableFuture<Void> fence0 = CompletableFuture.runAsync(() -> rank0.fence(TIMEOUT));
        awaitFenceArrivals(server, 1);
        rank1.close();
        assertEquals("rank 0: fence 1 failed: fence 1 cannot complete: rank 1 left the job (closed its rendezvous " +
            "connection)", failureOf(fence0).getMessage());

        server.rankDied(1, "exit status 3");
        final RendezvousClient rank2 = connect(server, 2);
        assertEquals("1 exit status 3", deaths(rank2).poll(2, TimeUnit.SECONDS));
    }

    @Test
    void shouldRefuseRanksOfAnotherSizeAndDuplicates() throws Exception
    {
        final RendezvousServer server = start("job7", 2, RendezvousServer.DEFAULT_LOSS_GRACE);
        connect(server, 0);
        final Duration shortly = Duration.ofSeconds(2);
        assertEquals("rank 0: HELLO failed: rank 0 is already connected", assertThrows(RendezvousException.class,
            () -> RendezvousClient.connect(server.address(), "job7", server.secret(), 0, 2, shortly)).getMessage());
        assertEquals("rank 1: HELLO failed: job job7 has 2 ranks, rank 1 believes it has 3",
            assertThrows(RendezvousException.class,
                () -> RendezvousClient.connect(server.address(), "job7", server.secret(), 1, 3, shortly))
                .getMessage());
        try (Socket raw = rawConnection(server))
        {
            send(raw, "PUT k v");
            assertEquals(List.of("ERR expected HELLO before 'PUT k v'"), readUntilClosed(raw));
        }
        assertEquals(1, server.connectedRanks());
        assertEquals("127.0.0.1", server.address().getAddress().getHostAddress());
    }

    @Test
    void shouldAdmitNoConnectionThatDoesNotKnowTheSecretAndStillAdmitTheRealRank() throws Exception
    {
        final RendezvousServer server = start("job8", 2, RendezvousServer.DEFAULT_LOSS_GRACE);
        for (final String hello : new String[]{ "HELLO 1 - 0 2", "HELLO 2 - 0 2 -", "HELLO 2 job8 0 2 " +
            JobSecret.generate().helloProof("replayed", "job8", 0, 2), "HELLO 2 job8 0 2 " + server.secret().text() })
        {
            try (Socket raw = rawConnection(server))
            {
                send(raw, hello);
                final List<String> replies = readUntilClosed(raw);
                assertEquals(1, replies.size(), () -> hello + " -> " + replies);
                assertTrue(replies.get(0).startsWith("ERR "), () -> hello + " -> " + replies);
            }
        }
        assertEquals(0, server.connectedRanks());

        final RendezvousClient rank0 = connect(server, 0);
        final RendezvousClient rank1 = connect(server, 1);
        rank0.put("k", "v");
        final CompletableFuture<Void> fence0 = CompletableFuture.runAsync(() -> rank0.fence(TIMEOUT));
        rank1.fence(TIMEOUT);
        fence0.get(5, TimeUnit.SECONDS);
        assertEquals("v", rank1.get(0, "k"));
    }

    @Test
    void shouldAnswerAWrongJobIdOrSecretWithOneLineThatDoesNotNameTheJob() throws Exception
    {
        final RendezvousServer server = start("job9", 2, RendezvousServer.DEFAULT_LOSS_GRACE);
        final Duration shortly = Duration.ofSeconds(2);

        final String wrongJob = assertThrows(RendezvousException.class,
            () -> RendezvousClient.connect(server.address(), "other", server.secret(), 1, 2, shortly)).getMessage();
        final String wrongSecret = assertThrows(RendezvousException.class,
            () -> RendezvousClient.connect(server.address(), "job9", JobSecret.generate(), 1, 2, shortly))
            .getMessage();

        assertEquals("rank 1: HELLO failed: not admitted: wrong job id or secret", wrongJob);
        assertEquals(wrongJob, wrongSecret);
        assertEquals(0, server.connectedRanks());
    }

    @Test
    void shouldCloseAConnectionThatDoesNotJoinWithinTheHelloTimeout() throws Exception
    {
        final RendezvousServer server = start("job10", 2, RendezvousServer.DEFAULT_LOSS_GRACE, Duration.ofMillis(300));
        try (Socket idle = rawConnection(server); Socket partial = rawConnection(server))
        {
            partial.getOutputStream().write("HELLO 2 job10".getBytes(StandardCharsets.UTF_8));
            final long startNs = System.nanoTime();

            assertEquals(List.of("ERR no HELLO within 300 ms"), readUntilClosed(idle));
            assertEquals(List.of("ERR no HELLO within 300 ms"), readUntilClosed(partial));
            final long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNs);
            assertTrue(elapsedMs >= 250 && elapsedMs < 3_000, "closed after " + elapsedMs + " ms");
        }
    }

    @Test
    void shouldServeEveryConnectionOnTwoThreadsAndAnswerBusyBeyondItsLimit() throws Exception
    {
        final RendezvousServer server = start("job11", 2, RendezvousServer.DEFAULT_LOSS_GRACE);
        final int limit = 2 + RendezvousServer.WAITING_MARGIN;
        final List<Socket> idle = new ArrayList<>();
        try
        {
            for (int i = 0; i < limit; i++)
            {
                idle.add(rawConnection(server));
            }
            try (Socket oneMore = new Socket(server.address().getAddress(), server.address().getPort()))
            {
                oneMore.setSoTimeout(5_000);
                assertEquals(List.of("BUSY " + limit + " connections wait for HELLO, the limit"),
                    readUntilClosed(oneMore));
            }
            assertTrue(rendezvousThreads() <= 2, "threads of the service with " + limit + " connections open");

            final CompletableFuture<RendezvousClient> rank0 = CompletableFuture.supplyAsync(() -> connect(server, 0));
            Thread.sleep(200);
            idle.remove(0).close();
            assertEquals(0, rank0.get(10, TimeUnit.SECONDS).rank(), "a rank told BUSY tries again");
        }
        finally
        {
            for (final Socket socket : idle)
            {
                socket.close();
            }
        }
    }

    @Test
    void shouldAnswerMalformedLinesWithOneErrAndACloseWithoutAStackTrace() throws Exception
    {
        final PrintStream originalErr = System.err;
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
        try
        {
            final RendezvousServer server = start("job12", 2, RendezvousServer.DEFAULT_LOSS_GRACE);
            for (final String hello : new String[]{ "HELLO 99999999999 - 0 2 x", "HELLO 2 - 0 99999999999 x",
                "HELLO 2 - -1 2 x", "HELLO", "HELLO 2 job12 0 2 " + "x".repeat(2_000) })
            {
                assertOneErrAndClose(rawConnection(server), hello, "ERR ");
            }
            for (final String request : new String[]{ "GET 99999999999 k", "FENCE 99999999999 100",
                "FENCE 1 999999999999999999999", "GET 1", "PUT", "LOST 1 myself", "LOST 99999999999 x", "WHAT" })
            {
                final RendezvousServer another = start("job13", 2, RendezvousServer.DEFAULT_LOSS_GRACE);
                assertOneErrAndClose(join(another, 1), request, "ERR ");
            }
            assertEquals(0, connect(server, 0).rank(), "the service still admits ranks");
        }
        finally
        {
            System.setErr(originalErr);
        }
        assertEquals("", err.toString(StandardCharsets.UTF_8), "what the service printed");
    }

    @Test
    void shouldKeepTheFirstPeerEachRankReportsLost() throws Exception
    {
        final RendezvousServer server = start("job14", 3, RendezvousServer.DEFAULT_LOSS_GRACE);
        final RendezvousClient rank0 = connect(server, 0);
        final RendezvousClient rank2 = connect(server, 2);

        assertTrue(rank0.reportLostPeer(1, "no message from rank 1\nfor 20 s"));
        assertTrue(rank0.reportLostPeer(2, "later"));
        assertTrue(rank2.reportLostPeer(1, ""));
        rank0.put("after", "report");

        final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (server.lostPeers().size() < 2)
        {
            assertTrue(System.nanoTime() - deadlineNs < 0, "waited 5 s for 2 reports, have " + server.lostPeers());
            Thread.sleep(5);
        }
        assertEquals(Map.of(0, new PeerLoss(1, "no message from rank 1 for 20 s"), 2,
            new PeerLoss(1, "no reason given")), server.lostPeers());
        assertEquals(Map.of(), rank2.deadRanks(), "a report of a lost peer is not a death");
        assertThrows(IllegalArgumentException.class, () -> rank0.reportLostPeer(0, "myself"));
    }

    private List<String> exchange(final RendezvousServer server, final int rank, final int size)
    {
        try (RendezvousClient client =
            RendezvousClient.connect(server.address(), "job1", server.secret(), rank, size, TIMEOUT))
        {
            client.put("endpoint", "endpoint of " + rank);
            client.fence(TIMEOUT);
            final List<String> seen = new ArrayList<>();
            for (int peer = 0; peer < size; peer++)
            {
                seen.add(client.get(peer, "endpoint"));
            }
            client.put("round2", "round 2 of " + rank);
            client.fence(TIMEOUT);
            seen.add(client.get(size - 1, "round2"));
            return seen;
        }
    }

    private RendezvousServer start(final String job, final int size, final Duration lossGrace) throws IOException
    {
        return start(job, size, lossGrace, RendezvousServer.DEFAULT_HELLO_TIMEOUT);
    }

    private RendezvousServer start(final String job, final int size, final Duration lossGrace,
        final Duration helloTimeout) throws IOException
    {
        final RendezvousServer server = RendezvousServer.start(job, size, lossGrace, helloTimeout);
        resources.add(server);
        return server;
    }

    private RendezvousClient connect(final RendezvousServer server, final int rank)
    {
        final RendezvousClient client =
            RendezvousClient.connect(server.address(), server.jobId(), server.secret(), rank, server.size(), TIMEOUT);
        resources.add(client);
        return client;
    }

    private Socket rawConnection(final RendezvousServer server) throws IOException
    {
        final Socket socket = new Socket(server.address().getAddress(), server.address().getPort());
        socket.setSoTimeout(5_000);
        final String challenge = readLine(socket);
        assertTrue(challenge.matches("CHALLENGE [0-9a-f]{32}"), challenge);
        return socket;
    }

    private Socket join(final RendezvousServer server, final int rank) throws IOException
    {
        final Socket socket = new Socket(server.address().getAddress(), server.address().getPort());
        socket.setSoTimeout(5_000);
        final String challenge = readLine(socket).substring("CHALLENGE ".length());
        send(socket, "HELLO 2 " + server.jobId() + " " + rank + " " + server.size() + " " +
            server.secret().helloProof(challenge, server.jobId(), rank, server.size()));
        assertEquals("OK", readLine(socket));
        return socket;
    }

    private static void send(final Socket socket, final String line) throws IOException
    {
        final OutputStream out = socket.getOutputStream();
        out.write((line + "\n").getBytes(StandardCharsets.UTF_8));
        out.flush();
    }

    private static String readLine(final Socket socket) throws IOException
    {
        final InputStream in = socket.getInputStream();
        return RendezvousProtocol.readLine(in, RendezvousProtocol.MAX_LINE_BYTES);
    }

    private static List<String> readUntilClosed(final Socket socket) throws IOException
    {
        final List<String> lines = new ArrayList<>();
        String line;
        while (null != (line = readLine(socket)))
        {
            lines.add(line);
        }
        return lines;
    }

    private static void assertOneErrAndClose(final Socket socket, final String request, final String prefix)
        throws IOException
    {
        try (socket)
        {
            send(socket, request);
            final List<String> replies = readUntilClosed(socket);
            assertEquals(1, replies.size(), () -> request + " -> " + replies);
            assertTrue(replies.get(0).startsWith(prefix), () -> request + " -> " + replies);
        }
    }

    private static long rendezvousThreads()
    {
        return Thread.getAllStackTraces().keySet().stream()
            .map(Thread::getName)
            .filter(name -> name.startsWith("stagecoach-rendezvous") && !name.startsWith("stagecoach-rendezvous-rank"))
            .count();
    }

    private static LinkedBlockingQueue<String> deaths(final RendezvousClient client)
    {
        final LinkedBlockingQueue<String> deaths = new LinkedBlockingQueue<>();
        client.addListener((rank, reason) -> deaths.add(rank + " " + reason));
        return deaths;
    }

    private static void awaitFenceArrivals(final RendezvousServer server, final int ranks)
        throws InterruptedException
    {
        final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (server.ranksInFence() < ranks)
        {
            assertTrue(System.nanoTime() - deadlineNs < 0, "waited 5 s for " + ranks + " ranks to enter the fence");
            Thread.sleep(5);
        }
    }

    private static Throwable failureOf(final CompletableFuture<Void> future)
    {
        final ExecutionException ex = assertThrows(ExecutionException.class, () -> future.get(5, TimeUnit.SECONDS));
        assertEquals(RendezvousException.class, ex.getCause().getClass());
        return ex.getCause();
    }
}
