package io.stagecoach.node.launch;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
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
        try (Socket raw = rawHello(server, "HELLO 1 job4 1 2"))
        {
            assertEquals("OK", readLine(raw));
        }

        assertEquals("1 lost its rendezvous connection", deaths.poll(5, TimeUnit.SECONDS));
    }

    @Test
    void shouldNotReportARankThatExitedNormallyButFailAFenceItCannotJoin() throws Exception
    {
        final RendezvousServer server = start("job5", 2, Duration.ofMillis(200));
        final RendezvousClient rank0 = connect(server, 0);
        final LinkedBlockingQueue<String> deaths = deaths(rank0);
        try (Socket raw = rawHello(server, "HELLO 1 job5 1 2"))
        {
            assertEquals("OK", readLine(raw));
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
    void shouldRefuseRanksOfAnotherJobOrSizeAndDuplicates() throws Exception
    {
        final RendezvousServer server = start("job7", 2, RendezvousServer.DEFAULT_LOSS_GRACE);
        connect(server, 0);
        final Duration shortly = Duration.ofSeconds(2);
        assertEquals("rank 0: HELLO failed: rank 0 is already connected", assertThrows(RendezvousException.class,
            () -> RendezvousClient.connect(server.address(), "job7", 0, 2, shortly)).getMessage());
        assertEquals("rank 1: HELLO failed: this service serves job job7, not job other",
            assertThrows(RendezvousException.class,
                () -> RendezvousClient.connect(server.address(), "other", 1, 2, shortly)).getMessage());
        assertEquals("rank 1: HELLO failed: job job7 has 2 ranks, rank 1 believes it has 3",
            assertThrows(RendezvousException.class,
                () -> RendezvousClient.connect(server.address(), "job7", 1, 3, shortly)).getMessage());
        try (Socket raw = rawHello(server, "PUT k v"))
        {
            assertEquals("ERR expected HELLO before 'PUT k v'", readLine(raw));
        }
        assertEquals(1, server.connectedRanks());
        assertEquals("127.0.0.1", server.address().getAddress().getHostAddress());
    }

    private List<String> exchange(final RendezvousServer server, final int rank, final int size)
    {
        try (RendezvousClient client = RendezvousClient.connect(server.address(), "job1", rank, size, TIMEOUT))
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
        final RendezvousServer server = RendezvousServer.start(job, size, lossGrace);
        resources.add(server);
        return server;
    }

    private RendezvousClient connect(final RendezvousServer server, final int rank)
    {
        final RendezvousClient client =
            RendezvousClient.connect(server.address(), server.jobId(), rank, server.size(), TIMEOUT);
        resources.add(client);
        return client;
    }

    private Socket rawHello(final RendezvousServer server, final String line) throws IOException
    {
        final Socket socket = new Socket(server.address().getAddress(), server.address().getPort());
        socket.setSoTimeout(5_000);
        final OutputStream out = socket.getOutputStream();
        out.write((line + "\n").getBytes(StandardCharsets.UTF_8));
        out.flush();
        return socket;
    }

    private static String readLine(final Socket socket) throws IOException
    {
        final InputStream in = socket.getInputStream();
        return RendezvousProtocol.readLine(in, RendezvousProtocol.MAX_LINE_BYTES);
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
