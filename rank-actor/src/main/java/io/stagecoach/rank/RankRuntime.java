package io.stagecoach.rank;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.stagecoach.pipeline.stage.StagePipeline;
import io.stagecoach.pipeline.trace.StageTracing;
import io.stagecoach.pipeline.transport.aeron.AeronTransport;
import io.stagecoach.pipeline.transport.aeron.DaemonThreads;
import io.stagecoach.pipeline.transport.aeron.EmbeddedMediaDriver;
import io.stagecoach.pipeline.transport.aeron.PeerAddress;
import io.stagecoach.protocol.ErrorClass;
import io.stagecoach.rank.bootstrap.JobFolder;
import io.stagecoach.rank.bootstrap.LaunchEnvironment;
import io.stagecoach.rank.bootstrap.RendezvousClient;
import io.stagecoach.rank.bootstrap.RendezvousListener;
import io.stagecoach.rank.engine.DevicePath;
import io.stagecoach.rank.engine.PeerLossListener;
import io.stagecoach.rank.engine.ProgressAgent;
import io.stagecoach.rank.engine.ProgressEngine;
import org.agrona.CloseHelper;
import org.agrona.concurrent.AgentRunner;
import org.apache.pekko.actor.typed.ActorSystem;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts and stops what a rank is made of: the media driver (the node's, or one embedded), the rendezvous client,
 * the actor system with the rank actor, the progress engine, the Aeron transport and the progress thread.
 * <p>
 * The start ends when every rank can hear every other (MPI_Init): each rank, once its own streams are connected,
 * says HELLO to every peer, and waits for a HELLO from each. The close (MPI_Finalize) fails what is still in flight,
 * says BYE to every peer and waits until each answers with BYE_ACK (everything this rank sent has been read) or is
 * lost, then releases everything. The runtime's threads are daemon threads; a program that ends without closing is
 * closed on its way out ({@link RankExit}).
 */
final class RankRuntime
{
    private static final Logger LOG = LoggerFactory.getLogger(RankRuntime.class);
    private static final String NODE_KEY = "stagecoach.node";
    private static final String UDP_KEY = "stagecoach.udp";

    private final StagecoachContext context;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final RankExit exit = new RankExit(this);
    private volatile boolean crashed;
    private EmbeddedMediaDriver ownedDriver;
    private JobFolder jobFolder;
    private RendezvousClient rendezvous;
    private boolean ownsRendezvous;
    private DevicePath device;
    private StageTracing tracing;
    private ProgressEngine engine;
    private ActorSystem<RankBehavior.Command> system;
    private AeronTransport transport;
    private AgentRunner progressRunner;

    private RankRuntime(final StagecoachContext context)
    {
        this.context = context;
    }

    static Communicator start(final StagecoachContext context)
    {
        context.conclude();
        final RankRuntime runtime = new RankRuntime(context);
        try
        {
            return runtime.startUp();
        }
        catch (final RuntimeException | Error ex)
        {
            try
            {
                runtime.close();
            }
            catch (final RuntimeException closing)
            {
                ex.addSuppressed(closing);
            }
            throw ex;
        }
    }

    private Communicator startUp()
    {
        final int rank = context.rank();
        final String directory = mediaDriverDirectory();
        rendezvous = rendezvousClient();
        final List<PeerAddress> peers = peerAddresses();
        tracing = StageTracing.start(context.stageTraceContext());
        device = new DevicePath(context.deviceRuntime(), context.pipelineSlotBytes(), context.chunkBytes(),
            context.pipelineSlots(), context.pipelinePoolSlots(), context.size(), context.pipelineWire().equals("arena"),
            context.devicePath().equals("auto"), tracing.tracer());
        engine = new ProgressEngine(rank, context.size(), context.engineSettings(), device);
        final PeerLossListener launcher = rendezvous == null ? PeerLossListener.NONE : rendezvous::reportLostPeer;
        system = ActorSystem.create(RankBehavior.create(engine, engine.peerProcesses(), launcher),
            "stagecoach-rank-" + rank, pekkoConfig());
        if (context.deviceRuntime() != null)
        {
            device.pipeline(new StagePipeline(system, context.deviceRuntime(), context.pipelinePoolSlots(),
                context.pipelineSlotBytes(), tracing.tracer()));
        }
        engine.lossListener((peer, reason) -> system.tell(new RankBehavior.PeerLost(peer, reason)));
        if (rendezvous != null)
        {
            rendezvous.addListener(deathListener(system));
        }
        transport = AeronTransport.connect(context.transportContext(peers, directory).listener(engine),
            error -> LOG.warn("rank {} Aeron client: {}", rank, error.toString()));
        engine.attach(transport);
        final long deadlineNs = System.nanoTime() + context.connectTimeout().toNanos();
        awaitWiredUp(directory, deadlineNs);
        engine.sayHello();
        awaitHellos(directory, deadlineNs);
        final ProgressAgent progressAgent = new ProgressAgent(engine);
        progressRunner = new AgentRunner(progressAgent.idleStrategy(context.progressMaxParkNs()),
            error -> LOG.error("rank {} progress thread", rank, error), null, progressAgent);
        AgentRunner.startOnThread(progressRunner, DaemonThreads.factory("stagecoach-progress-" + rank));
        exit.watch();
        LOG.info("rank {} of {} is up (job {}, node {}, media driver {})", rank, context.size(), context.jobId(),
            context.nodeName(), directory);
        return new Communicator(engine, this, context.deviceRuntime());
    }

    /**
     * Closes the rank: what is still in flight fails, every peer is told BYE and this waits until each has read what
     * this rank sent (its BYE_ACK) or is lost, then everything is released. Safe to call more than once and after a
     * failed start.
     *
     * @throws StagecoachException after releasing everything, when a peer still there did not confirm within the
     *                             close timeout that it read what this rank sent.
     */
    void close()
    {
        if (!closed.compareAndSet(false, true))
        {
            return;
        }
        exit.unwatch();
        final String unconfirmed = engine == null || crashed ? "" : leave();
        release();
        LOG.info("rank {} closed", context.rank());
        if (!unconfirmed.isEmpty())
        {
            throw new StagecoachException(ErrorClass.PENDING, "rank " + context.rank() + " closed, but ranks " +
                unconfirmed +
                " did not confirm within " + context.closeTimeout().toMillis() + " ms that they read what it sent " +
                "(job " + context.jobId() + ")");
        }
    }

    /**
     * Stops the rank as a crash would: progress ends and its Aeron client goes away without a goodbye to anyone.
     * The rank is unusable afterwards except for {@link #close()}, which then only releases what is left. Its memory
     * stays mapped until then: device work in flight may still read or write the arenas, and {@link #release()}
     * unmaps them only once the device is closed, after that work.
     */
    void crash()
    {
        crashed = true;
        exit.unwatch();
        CloseHelper.quietClose(progressRunner);
        progressRunner = null;
        if (engine != null)
        {
            engine.disconnect();
        }
        CloseHelper.quietClose(transport);
    }

    /**
     * Releases everything without a goodbye, after a crash or when the program failed.
     */
    void abandon()
    {
        if (closed.compareAndSet(false, true))
        {
            crash();
            release();
            LOG.info("rank {} left without a goodbye", context.rank());
        }
    }

    int rank()
    {
        return context.rank();
    }

    /**
     * The BYE handshake: says BYE and waits for every peer's BYE_ACK, then, when this rank runs the media driver of
     * other ranks of its node, for their streams to end, so that none loses its driver before it has left.
     *
     * @return ranks that did not confirm in time, for example {@code [1]}; empty when all did.
     */
    private String leave()
    {
        engine.startClosing();
        final long deadlineNs = System.nanoTime() + context.closeTimeout().toNanos();
        String unconfirmed;
        while (!(unconfirmed = engine.unconfirmedGoodbyes()).isEmpty() && System.nanoTime() - deadlineNs < 0)
        {
            idle(engine.progress());
        }
        if (ownedDriver != null && context.peers() == null && transport != null)
        {
            awaitLocalPeersLeft(deadlineNs);
        }
        return unconfirmed;
    }

    /**
     * Waits until every other rank of the node has left, the close timeout past only for those whose process is gone:
     * the driver this rank runs is theirs too, and stopping it under a rank that still works would break that rank.
     */
    private void awaitLocalPeersLeft(final long deadlineNs)
    {
        boolean told = false;
        for (int peer = 0; peer < context.size(); peer++)
        {
            while (peer != context.rank() && transport.isLocal(peer) && !transport.streamEnded(peer) &&
                (System.nanoTime() - deadlineNs < 0 || engine.peerProcesses().isRunning(peer)))
            {
                if (!told && System.nanoTime() - deadlineNs >= 0)
                {
                    LOG.warn("rank {}: closing, it waits for rank {} of this node, still running, to close too " +
                        "before it stops the node's media driver, which that rank uses", context.rank(), peer);
                    told = true;
                }
                idle(engine.progress());
            }
        }
    }

    private void release()
    {
        CloseHelper.quietClose(progressRunner);
        terminate(system);
        CloseHelper.quietClose(device);
        if (engine != null)
        {
            engine.detach();
        }
        CloseHelper.quietClose(transport);
        CloseHelper.quietClose(tracing);
        if (ownsRendezvous)
        {
            CloseHelper.quietClose(rendezvous);
        }
        CloseHelper.quietClose(ownedDriver);
        CloseHelper.quietClose(jobFolder);
    }

    /**
     * The media driver's directory: the one configured, else one inside a private job folder; a folder of its own
     * when this rank runs alone or with explicit peers, else the folder all ranks of the node derive from the job id,
     * which the first local rank creates and runs the driver in and the others check before they use it.
     */
    private String mediaDriverDirectory()
    {
        if (context.aeronDirectoryName() != null)
        {
            // the ranks create and map their shared arenas there, in a driver another process runs
            EmbeddedMediaDriver.checkParentIsPrivate(context.aeronDirectoryName(), "stagecoach.aeron.dir");
            return context.aeronDirectoryName();
        }
        final LaunchEnvironment environment = context.launchEnvironment();
        final Path derived = Path.of(environment.aeronDirectory());
        if (context.size() > 1 && context.peers() == null && environment.localRank() != 0)
        {
            jobFolder = JobFolder.awaitFor(derived, context.connectTimeout());
            return jobFolder.aeronDirectory();
        }
        jobFolder = context.size() == 1 || context.peers() != null ? JobFolder.create() : JobFolder.createFor(derived);
        ownedDriver = EmbeddedMediaDriver.launch(jobFolder.aeronDirectory());
        return ownedDriver.aeronDirectoryName();
    }

    private RendezvousClient rendezvousClient()
    {
        if (context.rendezvousClient() != null)
        {
            return context.rendezvousClient();
        }
        final LaunchEnvironment environment = context.launchEnvironment();
        if (!context.useRendezvous() || context.peers() != null || environment.rendezvous().isEmpty())
        {
            return null;
        }
        ownsRendezvous = true;
        return RendezvousClient.connect(environment, context.connectTimeout());
    }

    private List<PeerAddress> peerAddresses()
    {
        if (context.peers() != null)
        {
            return context.peers();
        }
        final int size = context.size();
        final List<PeerAddress> peers = new ArrayList<>(size);
        if (rendezvous == null)
        {
            for (int i = 0; i < size; i++)
            {
                peers.add(PeerAddress.local(context.nodeName()));
            }
            return peers;
        }
        rendezvous.put(NODE_KEY, context.nodeName());
        rendezvous.put(UDP_KEY, context.udpEndpoint(context.launchEnvironment().localRank()));
        rendezvous.fence(context.connectTimeout());
        for (int i = 0; i < size; i++)
        {
            peers.add(new PeerAddress(rendezvous.get(i, NODE_KEY), rendezvous.get(i, UDP_KEY)));
        }
        return peers;
    }

    private void awaitWiredUp(final String directory, final long deadlineNs)
    {
        while (!engine.isWiredUp())
        {
            checkStart(directory, deadlineNs, "could not connect with ranks " + engine.missingPeers());
            idle(engine.progress());
        }
    }

    /**
     * Waits for a HELLO from every peer: then every rank's streams are connected both ways, and no rank can leave,
     * or send, before every other can hear it.
     */
    private void awaitHellos(final String directory, final long deadlineNs)
    {
        String missing;
        while (!(missing = engine.missingHellos()).isEmpty())
        {
            checkStart(directory, deadlineNs, "did not hear from ranks " + missing);
            idle(engine.progress());
        }
    }

    private void checkStart(final String directory, final long deadlineNs, final String problem)
    {
        if (System.nanoTime() - deadlineNs >= 0)
        {
            throw new StagecoachException("rank " + context.rank() + " " + problem + " within " +
                context.connectTimeout().toMillis() + " ms (media driver " + directory + ", job " + context.jobId() +
                ")");
        }
    }

    private static void idle(final int workCount)
    {
        if (workCount == 0)
        {
            LockSupport.parkNanos(50_000);
        }
    }

    private RendezvousListener deathListener(final ActorSystem<RankBehavior.Command> system)
    {
        return new RendezvousListener()
        {
            public void onPeerDeath(final int rank, final String reason)
            {
                system.tell(new RankBehavior.PeerDied(rank, reason));
            }

            public void onServerLost(final String reason)
            {
                exit.launcherLost(reason);
            }
        };
    }

    private static Config pekkoConfig()
    {
        return ConfigFactory.parseString(String.join("\n",
            "pekko.loggers = [\"org.apache.pekko.event.slf4j.Slf4jLogger\"]",
            "pekko.logging-filter = \"org.apache.pekko.event.slf4j.Slf4jLoggingFilter\"",
            "pekko.stdout-loglevel = \"WARNING\"",
            "pekko.daemonic = on",
            "pekko.log-dead-letters-during-shutdown = off",
            "pekko.jvm-shutdown-hooks = off",
            "pekko.coordinated-shutdown.run-by-jvm-shutdown-hook = off",
            "pekko.actor.default-dispatcher.fork-join-executor.parallelism-min = 1",
            "pekko.actor.default-dispatcher.fork-join-executor.parallelism-max = 2",
            "pekko.actor.internal-dispatcher.fork-join-executor.parallelism-min = 1",
            "pekko.actor.internal-dispatcher.fork-join-executor.parallelism-max = 2"))
            .withFallback(ConfigFactory.load());
    }

    private static void terminate(final ActorSystem<RankBehavior.Command> system)
    {
        if (system == null)
        {
            return;
        }
        system.terminate();
        final CompletionStage<?> terminated = system.getWhenTerminated();
        try
        {
            terminated.toCompletableFuture().get(5, TimeUnit.SECONDS);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
        catch (final Exception ex)
        {
            LOG.warn("actor system {} did not terminate within 5 s: {}", system.name(), ex.toString());
        }
    }
}
