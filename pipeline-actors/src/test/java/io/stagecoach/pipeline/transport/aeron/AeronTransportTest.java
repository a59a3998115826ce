package io.stagecoach.pipeline.transport.aeron;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import io.aeron.Aeron;
import io.aeron.ExclusivePublication;
import io.aeron.logbuffer.BufferClaim;
import io.aeron.logbuffer.FragmentHandler;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

class AeronTransportTest
{
    @TempDir
    static Path tempDir;

    private static EmbeddedMediaDriver driver;
    private static int nextStreamBase = 0x10_0000;

    private final List<String> events = new CopyOnWriteArrayList<>();
    private final List<String> otherEvents = new CopyOnWriteArrayList<>();
    private final List<String> received = new ArrayList<>();

    @BeforeAll
    static void launchDriver()
    {
        driver = EmbeddedMediaDriver.launch(tempDir.resolve("aeron").toString());
    }

    @AfterAll
    static void closeDriver()
    {
        driver.close();
    }

    @Test
    void shouldExchangeMessagesOverIpcAndReportAClosedPeer()
    {
        final List<PeerAddress> peers = List.of(PeerAddress.local("a"), PeerAddress.local("a"));
        exchangeAndLose(peers);
    }

    @Test
    void shouldExchangeMessagesOverUdpBetweenNodesAndReportAClosedPeer()
    {
        final List<PeerAddress> peers =
            List.of(new PeerAddress("a", "127.0.0.1:24511"), new PeerAddress("b", "127.0.0.1:24512"));
        exchangeAndLose(peers);
    }

    @Test
    void shouldDropWhatArrivesOverUdpInTheNameOfARankOfItsOwnNode()
    {
        // ranks 0 and 1 on node a, rank 2 on node b: rank 0 hears rank 2 over UDP, rank 1 only over IPC
        final List<PeerAddress> peers = List.of(new PeerAddress("a", "127.0.0.1:24521"),
            new PeerAddress("a", "127.0.0.1:24522"), new PeerAddress("b", "127.0.0.1:24523"));
        final int streamBase = nextStreamBase += 16;
        final AeronTransport zero =
            AeronTransport.connect(context(0, peers, streamBase, events), Throwable::printStackTrace);
        final AeronTransport two =
            AeronTransport.connect(context(2, peers, streamBase, otherEvents), Throwable::printStackTrace);
        try (Aeron client = Aeron.connect(new Aeron.Context().aeronDirectoryName(driver.aeronDirectoryName())))
        {
            final ExclusivePublication forged = client.addExclusivePublication("aeron:udp?endpoint=127.0.0.1:24521|" +
                "session-id=" + (streamBase * 2 + 1), streamBase);
            final FragmentHandler handler = (buffer, offset, length, header) -> received.add(
                zero.rankOfSession(header.sessionId()) + ":" + buffer.getStringWithoutLengthAscii(offset, length));
            awaitTrue("the forger connected", forged::isConnected);
            send(forged, "forged");
            send(two.publication(0), "real");
            awaitTrue("rank 2's message and the forgery dropped", () -> work(zero, two, handler) >= 0 &&
                received.contains("2:real") && zero.localSessionFragmentsOverUdp() > 0);
            assertEquals(List.of("2:real"), received);
            forged.close();
            final long untilNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
            while (System.nanoTime() - untilNs < 0)
            {
                work(zero, two, handler);
                Thread.yield();
            }
            assertFalse(events.contains("stream 1"), "the forged image's end is no loss of rank 1: " + events);
        }
        finally
        {
            zero.close();
            two.close();
        }
    }

    @Test
    void shouldRejectInconsistentConfiguration()
    {
        final AeronTransportContext context = new AeronTransportContext()
            .rank(0).peers(List.of(PeerAddress.local("a"), PeerAddress.local("b")))
            .aeronDirectoryName("x").listener(listener(events));
        final IllegalArgumentException ex = org.junit.jupiter.api.Assertions.assertThrows(
            IllegalArgumentException.class, context::conclude);
        assertTrue(ex.getMessage().contains("rank 1 runs on node b"), ex.getMessage());
        context.peers(List.of(PeerAddress.local("a"))).rank(1);
        assertTrue(org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class, context::conclude)
            .getMessage().contains("rank 1 is outside [0, 1)"));
        context.rank(0).ipcMtuBytes(1000);
        assertTrue(org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class, context::conclude)
            .getMessage().contains("IPC MTU 1000 bytes"));
    }

    private void exchangeAndLose(final List<PeerAddress> peers)
    {
        final int streamBase = nextStreamBase += 16;
        final AeronTransport zero =
            AeronTransport.connect(context(0, peers, streamBase, events), Throwable::printStackTrace);
        final AeronTransport one =
            AeronTransport.connect(context(1, peers, streamBase, otherEvents), Throwable::printStackTrace);
        try
        {
            final FragmentHandler handler = (buffer, offset, length, header) -> received.add(
                zero.rankOfSession(header.sessionId()) + ":" + buffer.getStringWithoutLengthAscii(offset, length));
            awaitTrue("both ranks wired up", () -> work(zero, one, handler) >= 0 && zero.isWiredUp() &&
                one.isWiredUp());
            assertEquals("", zero.missingPeers());

            send(zero.publication(1), "hello");
            send(one.publication(0), "there");
            send(one.publication(1), "self");
            awaitTrue("three messages", () -> work(zero, one, handler) >= 0 && received.size() == 3);
            assertTrue(received.containsAll(List.of("0:hello", "1:there", "1:self")), received.toString());

            final long closedAtNs = System.nanoTime();
            one.close();
            awaitTrue("rank 0 notices rank 1 is gone", () -> zero.doWork(handler, 10) >= 0 &&
                events.contains("stream 1") && events.contains("inbox 1"));
            final long noticedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - closedAtNs);
            assertTrue(noticedMs < 2000, "noticed after " + noticedMs + " ms");
            assertFalse(events.contains("stream 0"), events.toString());
            assertTrue(otherEvents.isEmpty(), otherEvents.toString());
        }
        finally
        {
            zero.close();
            one.close();
        }
    }

    private AeronTransportContext context(
        final int rank, final List<PeerAddress> peers, final int streamBase, final List<String> events)
    {
        return new AeronTransportContext()
            .rank(rank)
            .peers(peers)
            .aeronDirectoryName(driver.aeronDirectoryName())
            .streamIdBase(streamBase)
            .sessionIdBase(streamBase * 2)
            .ipcTermLengthBytes(64 * 1024)
            .ipcMtuBytes(8192)
            .udpTermLengthBytes(64 * 1024)
            .listener(listener(events));
    }

    private static TransportListener listener(final List<String> events)
    {
        return new TransportListener()
        {
            public void onPeerStreamLost(final int rank, final String reason)
            {
                events.add("stream " + rank);
            }

            public void onPeerInboxLost(final int rank, final String reason)
            {
                events.add("inbox " + rank);
            }
        };
    }

    private static int work(final AeronTransport zero, final AeronTransport one, final FragmentHandler handler)
    {
        return zero.doWork(handler, 10) + one.doWork(handler, 10);
    }

    private static void send(final ExclusivePublication publication, final String text)
    {
        final BufferClaim claim = new BufferClaim();
        final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (publication.tryClaim(text.length(), claim) < 0)
        {
            if (System.nanoTime() > deadlineNs)
            {
                fail("could not claim " + text.length() + " bytes on " + publication.channel());
            }
            Thread.yield();
        }
        claim.buffer().putStringWithoutLengthAscii(claim.offset(), text);
        claim.commit();
    }

    private static void awaitTrue(final String what, final BooleanSupplier condition)
    {
        final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean())
        {
            if (System.nanoTime() > deadlineNs)
            {
                fail("timed out after 10 s waiting for " + what);
            }
            Thread.yield();
        }
    }

}
