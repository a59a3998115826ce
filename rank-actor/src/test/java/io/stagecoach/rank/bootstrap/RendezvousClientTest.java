package io.stagecoach.rank.bootstrap;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Timeout(30)
class RendezvousClientTest
{
    private static final Duration TIMEOUT = Duration.ofSeconds(5);
    private static final JobSecret SECRET = JobSecret.generate();

    @Test
    void shouldSpeakTheLineProtocolForPutGetFenceAndBye() throws Exception
    {
        try (ScriptedService service = new ScriptedService())
        {
            final CompletableFuture<RendezvousClient> connecting = connectAsync(service.address(), "job7", 1, 4);
            service.accept();
            final String challenge = JobSecret.newChallenge();
            service.send("CHALLENGE " + challenge);
            assertEquals("HELLO 2 job7 1 4 " + SECRET.helloProof(challenge, "job7", 1, 4), service.receive());
            service.send("OK");
            final RendezvousClient client = connecting.get(5, TimeUnit.SECONDS);

            final CompletableFuture<Void> put = CompletableFuture.runAsync(() -> client.put("aeron.stream", "a b c"));
            assertEquals("PUT aeron.stream a b c", service.receive());
            service.send("OK");
            put.get(5, TimeUnit.SECONDS);

            final CompletableFuture<Void> fence = CompletableFuture.runAsync(() -> client.fence(TIMEOUT));
            assertEquals("FENCE 1 5000", service.receive());
            service.send("FENCED 1");
            fence.get(5, TimeUnit.SECONDS);

            final CompletableFuture<String> get = CompletableFuture.supplyAsync(() -> client.get(3, "aeron.stream"));
            assertEquals("GET 3 aeron.stream", service.receive());
            service.send("VALUE x y");
            assertEquals("x y", get.get(5, TimeUnit.SECONDS));

            final CompletableFuture<String> missing = CompletableFuture.supplyAsync(() -> client.get(0, "absent"));
            assertEquals("GET 0 absent", service.receive());
            service.send("NONE");
            assertNull(missing.get(5, TimeUnit.SECONDS));

            final CompletableFuture<Void> close = CompletableFuture.runAsync(client::close);
            assertEquals("BYE", service.receive());
            service.send("OK");
            close.get(5, TimeUnit.SECONDS);
        }
    }

    @Test
    void shouldDeliverDeadPushesToListenersWithoutMistakingThemForReplies() throws Exception
    {
        try (ScriptedService service = new ScriptedService())
        {
            final RendezvousClient client = handshake(service, 0, 3);
            final List<String> deaths = new CopyOnWriteArrayList<>();
            final CountDownLatch died = new CountDownLatch(1);
            client.addListener((rank, reason) ->
            {
                deaths.add(rank + ":" + reason);
                died.countDown();
            });

            final CompletableFuture<String> get = CompletableFuture.supplyAsync(() -> client.get(1, "k"));
            assertEquals("GET 1 k", service.receive());
            service.send("DEAD 2 exit status 137 (signal 9, SIGKILL)");
            service.send("DEAD 2 duplicate");
            service.send("VALUE v");

            assertEquals("v", get.get(5, TimeUnit.SECONDS));
            assertTrue(died.await(5, TimeUnit.SECONDS), "waited 5 s for onPeerDeath of rank 2");
            assertEquals(List.of("2:exit status 137 (signal 9, SIGKILL)"), deaths);
            assertEquals("exit status 137 (signal 9, SIGKILL)", client.deadRanks().get(2));

            final List<Integer> late = new CopyOnWriteArrayList<>();
            client.addListener((rank, reason) -> late.add(rank));
            assertEquals(List.of(2), late);
        }
    }

    @Test
    void shouldFailAPendingFenceWithTheServiceReasonNamingTheDeadRank() throws Exception
    {
        try (ScriptedService service = new ScriptedService())
        {
            final RendezvousClient client = handshake(service, 0, 2);
            final CompletableFuture<Void> fence = CompletableFuture.runAsync(() -> client.fence(TIMEOUT));
            assertEquals("FENCE 1 5000", service.receive());
            service.send("ERR fence 1 cannot complete: rank 1 died (exit status 3)");

            final Throwable failure = assertThrows(Exception.class, () -> fence.get(5, TimeUnit.SECONDS)).getCause();
            assertEquals(RendezvousException.class, failure.getClass());
            assertEquals("rank 0: fence 1 failed: fence 1 cannot complete: rank 1 died (exit status 3)",
                failure.getMessage());
        }
    }

    @Test
    void shouldFailPendingRequestAndTellListenersWhenTheServiceIsLost() throws Exception
    {
        try (ScriptedService service = new ScriptedService())
        {
            final RendezvousClient client = handshake(service, 0, 2);
            final CompletableFuture<String> lost = new CompletableFuture<>();
            client.addListener(new RendezvousListener()
            {
                public void onPeerDeath(final int rank, final String reason)
                {
                }

                public void onServerLost(final String reason)
                {
                    lost.complete(reason);
                }
            });
            final CompletableFuture<Void> fence = CompletableFuture.runAsync(() -> client.fence(TIMEOUT));
            service.receive();
            service.dropConnection();

            final Throwable failure = assertThrows(Exception.class, () -> fence.get(5, TimeUnit.SECONDS)).getCause();
            assertTrue(failure.getMessage().contains("fence 1 failed, the rendezvous connection to"),
                failure.getMessage());
            assertTrue(lost.get(5, TimeUnit.SECONDS).contains("closed the connection"));
            final RendezvousException after = assertThrows(RendezvousException.class, () -> client.put("k", "v"));
            assertTrue(after.getMessage().contains("PUT k impossible"), after.getMessage());
            client.close();
        }
    }

    @Test
    void shouldNameTheRequestWhenTheServiceDoesNotAnswerInTime() throws Exception
    {
        try (ScriptedService service = new ScriptedService())
        {
            final RendezvousClient client = handshake(service, 1, 2).requestTimeout(Duration.ofMillis(200));
            final RendezvousException ex = assertThrows(RendezvousException.class, () -> client.put("key", "v"));
            assertTrue(ex.getMessage().endsWith("did not answer PUT key within 200 ms"), ex.getMessage());
            assertTrue(ex.getMessage().startsWith("rank 1: rendezvous service at 127.0.0.1:"), ex.getMessage());
            client.close();
        }
    }

    @Test
    void shouldProveItKnowsTheSecretWithoutSendingIt() throws Exception
    {
        try (ScriptedService service = new ScriptedService())
        {
            final CompletableFuture<RendezvousClient> connecting = connectAsync(service.address(), "job7", 3, 4);
            service.accept();
            final String challenge = JobSecret.newChallenge();
            service.send("CHALLENGE " + challenge);
            final String hello = service.receive();
            service.send("OK");
            connecting.get(5, TimeUnit.SECONDS).close();

            final String proof = hello.substring(hello.lastIndexOf(' ') + 1);
            assertFalse(hello.contains(SECRET.text()), hello);
            assertTrue(SECRET.acceptsHelloProof(challenge, "job7", 3, 4, proof));
            assertFalse(SECRET.acceptsHelloProof(JobSecret.newChallenge(), "job7", 3, 4, proof), "a replay");
            assertFalse(SECRET.acceptsHelloProof(challenge, "job7", 2, 4, proof), "another rank");
            assertFalse(JobSecret.generate().acceptsHelloProof(challenge, "job7", 3, 4, proof), "another secret");
            assertFalse(SECRET.acceptsHelloProof(challenge, "job7", 3, 4, "zz" + proof.substring(2)), "not hex");
        }
    }

    @Test
    void shouldTryAgainWhileTheServiceIsBusy() throws Exception
    {
        try (ScriptedService service = new ScriptedService())
        {
            final CompletableFuture<RendezvousClient> connecting = connectAsync(service.address(), "job", 0, 2);
            service.accept();
            service.send("BUSY 18 connections wait for HELLO, the limit");
            service.dropConnection();

            service.accept();
            final String challenge = JobSecret.newChallenge();
            service.send("CHALLENGE " + challenge);
            assertEquals("HELLO 2 job 0 2 " + SECRET.helloProof(challenge, "job", 0, 2), service.receive());
            service.send("OK");
            assertEquals(0, connecting.get(5, TimeUnit.SECONDS).rank());
        }
    }

    @Test
    void shouldSayThatTheServiceWantsASecretWhenItHasNone() throws Exception
    {
        try (ScriptedService service = new ScriptedService())
        {
            final CompletableFuture<RendezvousClient> connecting = CompletableFuture.supplyAsync(
                () -> RendezvousClient.connect(service.address(), "job", 1, 2, TIMEOUT));
            service.accept();
            service.send("CHALLENGE " + JobSecret.newChallenge());
            assertEquals("HELLO 2 job 1 2 -", service.receive());
            service.send("ERR not admitted: wrong job id or secret");

            final Throwable failure =
                assertThrows(Exception.class, () -> connecting.get(5, TimeUnit.SECONDS)).getCause();
            assertEquals("rank 1: HELLO failed: the rendezvous service at " + RendezvousClient.format(service.address()) +
                " admits only ranks that know the job's secret (STAGECOACH_SECRET), and this rank was given none " +
                "(not admitted: wrong job id or secret)", failure.getMessage());
        }
    }

    @Test
    void shouldRefuseToJoinFromAnEnvironmentWithoutTheSecret()
    {
        final LaunchEnvironment old = LaunchEnvironment.from(Map.of("STAGECOACH_RANK", "1", "STAGECOACH_SIZE", "2",
            "STAGECOACH_JOB", "j", "STAGECOACH_RENDEZVOUS", "127.0.0.1:40000"));

        final String message =
            assertThrows(IllegalStateException.class, () -> RendezvousClient.connect(old, TIMEOUT)).getMessage();

        assertTrue(message.startsWith("rank 1 cannot join the rendezvous service at 127.0.0.1:40000: " +
            "STAGECOACH_SECRET is not set; the service admits only ranks that know the job's secret"), message);
    }

    @Test
    void shouldJoinWithTheSecretOfItsEnvironment() throws Exception
    {
        try (ScriptedService service = new ScriptedService())
        {
            final LaunchEnvironment environment = LaunchEnvironment.from(Map.of("STAGECOACH_RANK", "1",
                "STAGECOACH_SIZE", "2", "STAGECOACH_JOB", "j", "STAGECOACH_SECRET", SECRET.text(),
                "STAGECOACH_RENDEZVOUS", RendezvousClient.format(service.address())));
            final CompletableFuture<RendezvousClient> connecting =
                CompletableFuture.supplyAsync(() -> RendezvousClient.connect(environment, TIMEOUT));
            service.accept();
            final String challenge = JobSecret.newChallenge();
            service.send("CHALLENGE " + challenge);
            assertEquals("HELLO 2 j 1 2 " + SECRET.helloProof(challenge, "j", 1, 2), service.receive());
            service.send("OK");
            assertEquals(1, connecting.get(5, TimeUnit.SECONDS).rank());
        }
    }

    @Test
    void shouldReportALostPeerAtOnceEvenWhileAFenceWaits() throws Exception
    {
        try (ScriptedService service = new ScriptedService())
        {
            final RendezvousClient client = handshake(service, 0, 3);
            final CompletableFuture<Void> fence = CompletableFuture.runAsync(() -> client.fence(TIMEOUT));
            assertEquals("FENCE 1 5000", service.receive());

            assertTrue(client.reportLostPeer(2, "no message from rank 2\r\nfor 20 s"));
            assertEquals("LOST 2 no message from rank 2  for 20 s", service.receive());
            assertTrue(client.reportLostPeer(1, " "));
            assertEquals("LOST 1 no reason given", service.receive());
            service.send("FENCED 1");
            fence.get(5, TimeUnit.SECONDS);

            assertThrows(IllegalArgumentException.class, () -> client.reportLostPeer(0, "itself"));
            assertThrows(IllegalArgumentException.class, () -> client.reportLostPeer(3, "outside"));
            service.dropConnection();
            final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (client.reportLostPeer(1, "after the service is gone"))
            {
                assertTrue(System.nanoTime() - deadlineNs < 0, "waited 5 s for the client to see the lost service");
                Thread.sleep(5);
            }
            client.close();
        }
    }

    @Test
    void shouldReportARefusedHello() throws Exception
    {
        try (ScriptedService service = new ScriptedService())
        {
            final CompletableFuture<RendezvousClient> connecting = connectAsync(service.address(), "job", 1, 2);
            service.accept();
            service.send("CHALLENGE " + JobSecret.newChallenge());
            service.receive();
            service.send("ERR rank 1 is already connected");
            final Throwable failure =
                assertThrows(Exception.class, () -> connecting.get(5, TimeUnit.SECONDS)).getCause();
            assertEquals("rank 1: HELLO failed: rank 1 is already connected", failure.getMessage());
        }
    }

    @Test
    void shouldRetryUntilTheServiceListensAndGiveUpNamingTheAddress() throws Exception
    {
        final int port;
        try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getByAddress(new byte[]{ 127, 0, 0, 1 })))
        {
            port = probe.getLocalPort();
        }
        final InetSocketAddress address = RendezvousProtocol.loopback("127.0.0.1", port, "test");
        final long startNs = System.nanoTime();
        final RendezvousException ex = assertThrows(RendezvousException.class,
            () -> RendezvousClient.connect(address, 0, 1, Duration.ofMillis(300)));
        final long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNs);
        assertTrue(elapsedMs >= 250 && elapsedMs < 3_000, "gave up after " + elapsedMs + " ms");
        assertTrue(ex.getMessage().startsWith(
            "rank 0 could not connect to the rendezvous service at 127.0.0.1:" + port + " within 300 ms"),
            ex.getMessage());
    }

    @Test
    void shouldRefuseUnresolvedAddressesAddressesOffTheLoopbackNetworkAndBadKeys() throws Exception
    {
        final InetSocketAddress named = InetSocketAddress.createUnresolved("node-a", 1);
        assertThrows(IllegalArgumentException.class, () -> RendezvousClient.connect(named, 0, 1, TIMEOUT));
        assertThrows(IllegalArgumentException.class, () -> RendezvousProtocol.checkKey("two words"));
        assertThrows(IllegalArgumentException.class, () -> RendezvousProtocol.checkKey(""));
        assertThrows(IllegalArgumentException.class, () -> RendezvousProtocol.checkValue("k", "a\nb"));
        assertThrows(IllegalStateException.class, () -> RendezvousProtocol.loopback("192.168.1.1", 1, "test"));
        try (ScriptedService service = new ScriptedService())
        {
            final RendezvousClient client = handshake(service, 0, 2);
            assertThrows(IllegalArgumentException.class, () -> client.get(2, "k"));
            assertThrows(IllegalArgumentException.class, () -> client.put("k", "line\r\nbreak"));
        }
    }

    private static RendezvousClient handshake(final ScriptedService service, final int rank, final int size)
        throws Exception
    {
        final CompletableFuture<RendezvousClient> connecting = connectAsync(service.address(), "job", rank, size);
        service.accept();
        final String challenge = JobSecret.newChallenge();
        service.send("CHALLENGE " + challenge);
        assertEquals("HELLO 2 job " + rank + " " + size + " " + SECRET.helloProof(challenge, "job", rank, size),
            service.receive());
        service.send("OK");
        return connecting.get(5, TimeUnit.SECONDS);
    }

    private static CompletableFuture<RendezvousClient> connectAsync(
        final InetSocketAddress address, final String job, final int rank, final int size)
    {
        return CompletableFuture.supplyAsync(
            () -> RendezvousClient.connect(address, job, SECRET, rank, size, TIMEOUT));
    }
}
