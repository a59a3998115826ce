package io.stagecoach.rank;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.stagecoach.pipeline.transport.aeron.AeronTransport;
import io.stagecoach.pipeline.transport.aeron.EmbeddedMediaDriver;
import io.stagecoach.pipeline.transport.aeron.PeerAddress;
import io.stagecoach.pipeline.trace.StageTracer;
import io.stagecoach.protocol.datatype.Datatype;
import io.stagecoach.rank.bootstrap.RendezvousClient;
import io.stagecoach.rank.bootstrap.RendezvousListener;
import io.stagecoach.rank.engine.DevicePath;
import io.stagecoach.rank.engine.ProgressEngine;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * When the launcher's rendezvous service reports a rank dead, requests waiting on it fail at once, without waiting
 * for Aeron's timeouts, naming the rank and what the launcher saw; a report that arrives before the rank's transport
 * is attached is remembered.
 */
class LauncherDeathNoticeTest
{
    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    @TempDir
    Path directory;

    @Test
    void shouldFailRequestsOnARankTheLauncherReportsDead() throws Exception
    {
        try (ServerSocket server = new ServerSocket(0, 4, InetAddress.getByAddress(new byte[]{ 127, 0, 0, 1 })))
        {
            server.setSoTimeout((int)TIMEOUT.toMillis());
            final Thread accepting = new Thread(() -> acceptHello(server));
            accepting.start();
            final RendezvousClient client = RendezvousClient.connect(
                new InetSocketAddress(server.getInetAddress(), server.getLocalPort()), 0, 3, TIMEOUT);
            accepting.join(TIMEOUT.toMillis());
            try (LocalJob job = LocalJob.start(directory, 3,
                context -> context.rendezvousClient(context.rank() == 0 ? client : null)))
            {
                final Request fromTwo = job.rank(0).irecv(ByteBuffer.allocateDirect(8), 2, Datatype.INT, 2, 1);
                final Request fromOne = job.rank(0).irecv(ByteBuffer.allocateDirect(8), 2, Datatype.INT, 1, 1);
                final long pushedNs = System.nanoTime();
                push("DEAD 2 exit status 137 (signal 9, SIGKILL)");

                final PeerLostException lost = assertThrows(PeerLostException.class, () -> fromTwo.await(TIMEOUT));
                assertTrue(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - pushedNs) < 500);
                assertEquals(2, lost.peer());
                assertTrue(lost.getMessage().startsWith("rank 2 died: exit status 137 (signal 9, SIGKILL)"),
                    lost.getMessage());
                assertFalse(fromOne.isDone());
                job.rank(1).send(ByteBuffer.allocateDirect(8), 2, Datatype.INT, 0, 1);
                assertEquals(1, fromOne.await(TIMEOUT).source());
            }
            finally
            {
                client.close();
            }
        }
    }

    @Test
    void shouldRememberADeathNoticeThatArrivesBeforeTheTransportIsAttached()
    {
        final String jobId = "early-death-" + ProcessHandle.current().pid();
        final List<PeerAddress> peers = Collections.nCopies(3, PeerAddress.local("node"));
        try (EmbeddedMediaDriver driver = EmbeddedMediaDriver.launch(directory.resolve(jobId).toString()))
        {
            final StagecoachContext context = new StagecoachContext().rank(0).size(3).jobId(jobId).nodeName("node")
                .peers(peers).aeronDirectoryName(driver.aeronDirectoryName()).useRendezvous(false).conclude();
            final ProgressEngine engine = new ProgressEngine(0, 3, context.engineSettings(),
                new DevicePath(null, context.pipelineSlotBytes(), 0, 1, 1, 3, false, false, StageTracer.OFF));
            engine.submit(locked -> locked.peerDied(2, "exit status 137 (signal 9, SIGKILL)"));
            try (AeronTransport transport = AeronTransport.connect(
                context.transportContext(peers, driver.aeronDirectoryName()).listener(engine), error -> { }))
            {
                engine.attach(transport);
                final Communicator rank0 = new Communicator(engine, null, null);

                final Request toTwo = rank0.isend(ByteBuffer.allocateDirect(8), 2, Datatype.INT, 2, 1);
                final Request fromTwo = rank0.irecv(ByteBuffer.allocateDirect(8), 2, Datatype.INT, 2, 1);
                final Request fromOne = rank0.irecv(ByteBuffer.allocateDirect(8), 2, Datatype.INT, 1, 1);
                assertTrue(toTwo.isDone(), "a send to a rank reported dead fails at once");
                assertTrue(fromTwo.isDone(), "a receive from a rank reported dead fails at once");
                final PeerLostException lost = assertThrows(PeerLostException.class, () -> toTwo.await(TIMEOUT));
                assertEquals(2, lost.peer());
                assertTrue(lost.getMessage().startsWith("rank 2 died: exit status 137 (signal 9, SIGKILL): isend("),
                    lost.getMessage());
                assertEquals(2, assertThrows(PeerLostException.class, () -> fromTwo.await(TIMEOUT)).peer());
                assertFalse(fromOne.isDone(), "rank 1 is alive");
                engine.startClosing();
                engine.detach();
                assertTrue(fromOne.status().error().getMessage().contains("rank 0 closed its communicator"));
            }
        }
    }

    @Test
    void shouldFailRequestsOnARankReportedDeadBeforeThisRankStarted() throws Exception
    {
        try (ServerSocket server = new ServerSocket(0, 4, InetAddress.getByAddress(new byte[]{ 127, 0, 0, 1 })))
        {
            server.setSoTimeout((int)TIMEOUT.toMillis());
            final Thread accepting = new Thread(() -> acceptHello(server));
            accepting.start();
            final RendezvousClient client = RendezvousClient.connect(
                new InetSocketAddress(server.getInetAddress(), server.getLocalPort()), 0, 3, TIMEOUT);
            accepting.join(TIMEOUT.toMillis());
            final CountDownLatch noticed = new CountDownLatch(1);
            client.addListener(new RendezvousListener()
            {
                public void onPeerDeath(final int rank, final String reason)
                {
                    noticed.countDown();
                }

                public void onServerLost(final String reason)
                {
                }
            });
            push("DEAD 2 exit status 137 (signal 9, SIGKILL)");
            assertTrue(noticed.await(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS), "the client read the notice");
            try (LocalJob job = LocalJob.start(directory, 3,
                context -> context.rendezvousClient(context.rank() == 0 ? client : null)))
            {
                final Request fromTwo = job.rank(0).irecv(ByteBuffer.allocateDirect(8), 2, Datatype.INT, 2, 1);
                final PeerLostException lost = assertThrows(PeerLostException.class, () -> fromTwo.await(TIMEOUT));
                assertEquals(2, lost.peer());
                assertTrue(lost.getMessage().startsWith("rank 2 died: exit status 137 (signal 9, SIGKILL)"),
                    lost.getMessage());
                final Request fromOne = job.rank(0).irecv(ByteBuffer.allocateDirect(8), 2, Datatype.INT, 1, 1);
                job.rank(1).send(ByteBuffer.allocateDirect(8), 2, Datatype.INT, 0, 1);
                assertEquals(1, fromOne.await(TIMEOUT).source());
            }
            finally
            {
                client.close();
            }
        }
    }

    private Socket connection;

    private void acceptHello(final ServerSocket server)
    {
        try
        {
            connection = server.accept();
            final BufferedReader in = new BufferedReader(
                new InputStreamReader(connection.getInputStream(), StandardCharsets.UTF_8));
            final String hello = in.readLine();
            assertTrue(hello.startsWith("HELLO "), hello);
            push("OK");
            final Thread reader = new Thread(() -> answerUntilClosed(in));
            reader.setDaemon(true);
            reader.start();
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException(ex);
        }
    }

    private void answerUntilClosed(final BufferedReader in)
    {
        try
        {
            String line;
            while ((line = in.readLine()) != null)
            {
                if (line.startsWith("BYE"))
                {
                    push("OK");
                }
            }
        }
        catch (final IOException ignored)
        {
            return;
        }
    }

    private synchronized void push(final String line) throws IOException
    {
        final OutputStream out = connection.getOutputStream();
        out.write((line + "\n").getBytes(StandardCharsets.UTF_8));
        out.flush();
    }
}
