package io.stagecoach.rank.engine;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

import io.stagecoach.pipeline.transport.aeron.AeronTransport;
import io.stagecoach.pipeline.transport.aeron.TransportListener;
import io.stagecoach.protocol.host.CrossMemory;
import io.stagecoach.rank.Request;
import io.stagecoach.rank.Status;
import io.stagecoach.rank.memory.HostBufferPool;
import io.stagecoach.rank.memory.PeerArenas;
import io.stagecoach.rank.memory.SharedArena;
import org.agrona.concurrent.ManyToOneConcurrentLinkedQueue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import static io.stagecoach.rank.engine.EngineErrors.closedError;

/**
 * The protocol engine of one rank: MPI matching, protocol choice (eager below a threshold and within the eager
 * credit of the destination, rendezvous RTS/CTS/DATA/FIN above it), the transfers in flight and the failure of
 * everything that waits on a lost peer.
 * <p>
 * Single threaded by construction: every method that touches its state runs under the progress lock, taken with
 * {@code tryLock} only, so no thread ever blocks on it. Whoever holds it runs the duty cycle: a user thread waiting
 * on a request (so a small message is matched and completed on the thread that waits for it, with no cross-thread
 * wake-up), the rank's progress thread when nobody waits, or a thread posting a request. Other threads hand work
 * in through a lock-free command queue, which the holder drains in order.
 * <p>
 * This class is the shell: the lock ({@link ProgressLock}), the command queue and the duty cycle. The protocol state
 * lives in its parts, which run only under its lock: {@link Inbound} (the messages of the inbox), {@link Delivery}
 * (matching and delivery to receives), {@link Outbound} (queued sends, streaming, control messages),
 * {@link PeerLiveness} (the peers, their loss and the failure of what waits on them), {@link Transfers},
 * {@link MatchQueues} and {@link Completions}.
 */
public final class ProgressEngine implements TransportListener, CommandSink
{
    private static final Logger LOG = LoggerFactory.getLogger(ProgressEngine.class);
    private static final int FRAGMENT_LIMIT = 64;
    /**
     * Duty cycles read the clock once in this many (mask + 1), for the liveness checks, which look milliseconds
     * ahead: a read costs about as much as the rest of an idle cycle.
     */
    private static final long CLOCK_EVERY_MASK = 15;

    private final int rank;
    private final int size;
    private final EngineSettings settings;
    private final DevicePath device;
    private final Transfers transfers = new Transfers();
    private final Completions completions;
    private final ArrivalWatches arrivals;
    private final MatchQueues queues;
    private final ProgressLock lock;
    private final PeerProcesses processes;
    private final PeerLiveness liveness;
    private final Outbound outbound;
    private final Delivery delivery;
    private final Inbound inbound;
    private final ManyToOneConcurrentLinkedQueue<EngineCommand> commands = new ManyToOneConcurrentLinkedQueue<>();
    private final AtomicInteger activeWaiters = new AtomicInteger();
    private final AtomicInteger backgroundRequests = new AtomicInteger();
    private final HostBufferPool hostBuffers;
    private AeronTransport transport;
    private long dutyCycles;
    private long clockNs = System.nanoTime();
    private SharedArena arena;
    private PeerArenas peerArenas;
    private volatile boolean closed;
    private volatile Thread progressThread;

    public ProgressEngine(final int rank, final int size, final EngineSettings settings, final DevicePath device)
    {
        this.rank = rank;
        this.size = size;
        this.settings = settings;
        this.device = device;
        this.completions = new Completions(device.tracer());
        this.arrivals = new ArrivalWatches(completions);
        this.queues = new MatchQueues(arrivals);
        this.lock = new ProgressLock(completions);
        this.processes = new PeerProcesses(size);
        this.liveness = new PeerLiveness(rank, size, settings, queues, transfers, completions, processes, device);
        this.hostBuffers = new HostBufferPool();
        this.outbound = new Outbound(rank, settings, device, this, transfers, completions, liveness, hostBuffers);
        this.delivery = new Delivery(
            rank, settings, device, this, queues, transfers, completions, liveness, outbound, hostBuffers);
        this.inbound = new Inbound(rank, settings, queues, transfers, completions, liveness, delivery, outbound);
        device.watchFrees(this);
    }

    /**
     * Attaches the transport once connected; the engine sends nothing before. Commands submitted before (a peer's
     * death reported by the launcher, a stream lost while the transport connected) wait in the command queue and run
     * here, in order.
     *
     * @param transport this rank's transport.
     */
    public void attach(final AeronTransport transport)
    {
        final Peer[] attached = new Peer[size];
        final String unreadable = CrossMemory.unavailableReason();
        final boolean readsFromSameNode = settings.sameNodeReads() && unreadable == null;
        if (readsFromSameNode)
        {
            final int allowed = CrossMemory.allowReaders();
            if (allowed != 0)
            {
                LOG.info("rank {}: peers may not be allowed to read this rank's memory: {}", rank,
                    CrossMemory.describe(allowed));
            }
        }
        if (settings.sameNodeReads() && unreadable != null)
        {
            LOG.info("rank {}: same-node messages go through the log buffers: {}", rank, unreadable);
        }
        if (readsFromSameNode)
        {
            openArenas(transport.aeronDirectoryName());
        }
        for (int i = 0; i < size; i++)
        {
            attached[i] = new Peer(i, transport.publication(i), settings.eagerWindowBytes());
            attached[i].local = transport.isLocal(i);
            attached[i].readable = readsFromSameNode && attached[i].publication.channel().startsWith("aeron:ipc");
        }
        lock.lockYielding();
        try
        {
            liveness.attach(attached, System.nanoTime());
            inbound.attach(transport);
            this.transport = transport;
            drainCommands();
        }
        finally
        {
            lock.unlock();
        }
    }

    public int rank()
    {
        return rank;
    }

    public int size()
    {
        return size;
    }

    public boolean isClosed()
    {
        return closed;
    }

    /**
     * @return the largest packed message sent eagerly.
     */
    public int eagerThresholdBytes()
    {
        return settings.eagerThresholdBytes();
    }

    public AwaitIdler newIdler()
    {
        return new AwaitIdler(settings.idleMode(), settings.awaitMaxParkNs());
    }

    /**
     * Hands work to the engine and runs it at once when the lock is free and the transport attached; before
     * {@link #attach(AeronTransport)} it waits in the command queue.
     *
     * @param command to run in order with all other commands.
     */
    public void submit(final EngineCommand command)
    {
        if (lock.tryLock())
        {
            try
            {
                if (liveness.isAttached())
                {
                    drainCommands();
                    run(command);
                    return;
                }
            }
            finally
            {
                lock.unlock();
            }
        }
        commands.offer(command);
        if (lock.tryLock())
        {
            try
            {
                drainCommands();
            }
            finally
            {
                lock.unlock();
            }
        }
    }

    /**
     * Runs a command on the calling thread only when no other thread drives the engine and no command waits before
     * it, and otherwise queues it for the thread that drives the engine next, waking the progress thread: for an
     * actor's thread, which may run a small command of its own (an eager send, the post of a small receive in host
     * memory) but never the work of another thread.
     *
     * @param command to run in order with all other commands.
     */
    public void submitAlone(final EngineCommand command)
    {
        if (commands.isEmpty() && lock.tryLock())
        {
            try
            {
                if (liveness.isAttached() && commands.isEmpty())
                {
                    run(command);
                    return;
                }
            }
            finally
            {
                lock.unlock();
            }
        }
        enqueue(command);
    }

    public void enqueue(final EngineCommand command)
    {
        commands.offer(command);
        final Thread background = progressThread;
        if (background != null && activeWaiters.get() == 0)
        {
            LockSupport.unpark(background);
        }
    }

    /**
     * @param thread the rank's progress thread, which {@link #enqueue} wakes when no other thread drives the engine.
     */
    void progressThread(final Thread thread)
    {
        this.progressThread = thread;
    }

    /**
     * Runs one duty cycle if no other thread is running one.
     *
     * @return work done, 0 when the lock was taken.
     */
    public int progress()
    {
        if (!lock.tryLock())
        {
            return 0;
        }
        int workCount;
        try
        {
            workCount = doWork((++dutyCycles & CLOCK_EVERY_MASK) == 0 ? (clockNs = System.nanoTime()) : clockNs);
        }
        finally
        {
            lock.unlock();
        }
        return workCount;
    }

    /**
     * Runs duty cycles for a thread waiting on a request under one hold of the lock, until the request completes or
     * {@code maxIdleCycles} cycles in a row found no work: taking and releasing the lock costs as much as an idle
     * cycle. Other threads meanwhile queue their commands, which these cycles run.
     *
     * @param request       the request waited on.
     * @param maxIdleCycles idle cycles before the lock is released, at least 1.
     * @return work done, 0 when another thread holds the lock.
     */
    public int progressWhileWaiting(final Request request, final int maxIdleCycles)
    {
        if (!lock.tryLock())
        {
            return 0;
        }
        int workCount = 0;
        try
        {
            int idleCycles = 0;
            while (request.status() == null && idleCycles < maxIdleCycles)
            {
                final int work = doWork((++dutyCycles & CLOCK_EVERY_MASK) == 0 ? (clockNs = System.nanoTime()) :
                    clockNs);
                workCount += work;
                idleCycles = work > 0 ? 0 : idleCycles + 1;
            }
        }
        finally
        {
            lock.unlock();
        }
        return workCount;
    }

    /**
     * Runs one duty cycle for the rank's progress thread, unless a thread waiting on a request is running them
     * already: two threads taking turns would bounce the engine's state between their cores on every message.
     *
     * @return work done, 0 when a waiting thread or another holder has the engine.
     */
    int backgroundProgress()
    {
        return activeWaiters.get() > 0 ? 0 : progress();
    }

    /**
     * A thread starts (+1) or stops (-1) running duty cycles while it waits; it stops before it parks.
     *
     * @param delta +1 or -1.
     */
    public void waiterActive(final int delta)
    {
        activeWaiters.addAndGet(delta);
    }

    /**
     * @return true while a waiting thread runs duty cycles itself.
     */
    boolean hasActiveWaiter()
    {
        return activeWaiters.get() > 0;
    }

    /**
     * A request that no thread waits on, whose completion a listener is told of, starts (+1) or completes (-1): while
     * there are such requests the progress thread drives them, idling as a waiting thread does rather than backing off
     * to long parks.
     *
     * @param delta +1 or -1.
     */
    public void backgroundRequest(final int delta)
    {
        backgroundRequests.addAndGet(delta);
    }

    /**
     * @return true while requests that only the progress thread drives are in flight.
     */
    boolean hasBackgroundRequests()
    {
        return backgroundRequests.get() > 0;
    }

    /**
     * @return true once every rank is reachable both ways, or gone (reported dead before it connected).
     */
    public boolean isWiredUp()
    {
        return transport.isWiredUp() || missingPeers().isEmpty();
    }

    /**
     * @return ranks neither connected both ways nor gone, for example {@code [2, 3]}; empty when none.
     */
    public String missingPeers()
    {
        lock.lockYielding();
        try
        {
            return liveness.ranks(peer -> !peer.isGone() && !transport.isConnected(peer.rank));
        }
        finally
        {
            lock.unlock();
        }
    }

    /**
     * MPI_Iprobe, after a duty cycle: the envelope of the earliest unexpected message that matches.
     *
     * @return its status (count in bytes), or null when none matches.
     */
    public Status probe(final int source, final int tag, final int contextId)
    {
        lock.lockSpinning();
        try
        {
            doWork(System.nanoTime());
            return delivery.probe(source, tag, contextId);
        }
        finally
        {
            lock.unlock();
        }
    }

    /**
     * MPI_Iprobe without waiting for the engine: the answer, the envelope of the earliest unexpected message that
     * matches (null when none does) or a failed status (a gone source), is given to {@code answer} on the thread that
     * runs the probe, once it released the engine. The probe runs on the calling thread when the engine is free
     * ({@link #submitAlone}), otherwise in the next duty cycle; it sees the messages the engine has taken in.
     *
     * @param answer told the answer once; must not block.
     */
    public void probe(final int source, final int tag, final int contextId, final Consumer<Status> answer)
    {
        submitAlone(locked -> locked.answerProbe(source, tag, contextId, answer));
    }

    /**
     * Starts telling {@code listener} of every unexpected message with this tag (or any, for
     * {@link io.stagecoach.rank.Communicator#ANY_TAG}) and context: first those held when the watch starts, then each
     * as it arrives. The watch starts in the next duty cycle, or on the calling thread when the engine is free.
     *
     * @param listener told of each, on the thread that drove the engine once it released the engine.
     */
    public void watchArrivals(final int tag, final int contextId, final ArrivalListener listener)
    {
        submitAlone(locked -> locked.arrivals.add(listener, tag, contextId, locked.queues));
    }

    /**
     * Stops the watches of a listener; an arrival told before may still be on its way to it.
     *
     * @param listener as given to {@link #watchArrivals}.
     */
    public void unwatchArrivals(final ArrivalListener listener)
    {
        submitAlone(locked -> locked.arrivals.remove(listener));
    }

    /**
     * MPI_Cancel of a receive: takes it out of the posted queue, when no message has matched it yet, and completes it
     * as cancelled.
     *
     * @param request a receive of this engine.
     * @return true when it was cancelled, false when a message matched it already or it completed.
     */
    public boolean cancel(final Request request)
    {
        lock.lockSpinning();
        try
        {
            drainCommands();
            final ReceiveOperation receive = queues.takePosted(request);
            if (receive == null)
            {
                return false;
            }
            completions.complete(request, Status.cancelled(receive.source, receive.tag));
            return true;
        }
        finally
        {
            lock.unlock();
        }
    }

    /**
     * A snapshot of counters, for tests and diagnostics.
     *
     * @param peerRank a rank.
     * @return eager sends to it, rendezvous sends to it, unexpected messages held, unexpected payload bytes held,
     * posted receives waiting, eager credit left towards it, messages from it read straight out of its memory, of
     * those the ones copied out of its shared arena, the ones copied straight out of a send buffer there, the
     * chunks of large device messages taken out of its arena's slots in place, the device messages from it got
     * straight out of its device buffer over IPC, and the device allocations it offered over IPC and told this rank
     * it freed (IPC_RELEASE).
     */
    public long[] counters(final int peerRank)
    {
        lock.lockSpinning();
        try
        {
            final Peer peer = liveness.peer(peerRank);
            return new long[]{ peer.eagerSends, peer.rendezvousSends, queues.unexpectedCount(),
                queues.unexpectedBytes(), queues.postedCount(), peer.eagerCreditBytes, peer.reads, peer.arenaCopies,
                peer.directCopies, peer.arenaChunks, peer.ipcGets, peer.ipcReleases };
        }
        finally
        {
            lock.unlock();
        }
    }

    // --- commands ------------------------------------------------------------------------------------------------

    private void answerProbe(final int source, final int tag, final int contextId, final Consumer<Status> answer)
    {
        Status found;
        try
        {
            found = delivery.probe(source, tag, contextId);
        }
        catch (final RuntimeException ex)
        {
            found = Status.failed(source, tag, ex);
        }
        final Status answered = found;
        completions.afterRelease(() -> answer.accept(answered));
    }

    void postSend(final SendOperation send)
    {
        if (closed)
        {
            completions.fail(send.request, closedError(rank, send.request));
            send.releaseStaged();
            return;
        }
        outbound.post(send);
    }

    void postReceive(final ReceiveOperation receive)
    {
        if (closed)
        {
            completions.fail(receive.request, closedError(rank, receive.request));
            return;
        }
        delivery.post(receive);
    }

    void windowGrew(final ReceiveOperation receive)
    {
        delivery.windowGrew(receive);
    }

    void chunkUnpacked(final ReceiveOperation receive, final int chunk)
    {
        delivery.chunkUnpacked(receive, chunk);
    }

    void exportFreed(final long allocationAddress, final long exportNumber)
    {
        outbound.releaseExport(allocationAddress, exportNumber);
    }

    void chunkedSendFailed(final SendOperation send, final Throwable failure)
    {
        outbound.chunkedSendFailed(send, failure);
    }

    void chunkedReceiveFailed(final ReceiveOperation receive, final Throwable failure)
    {
        delivery.chunkedReceiveFailed(receive, failure);
    }

    public void peerDied(final int peerRank, final String reason)
    {
        liveness.peerDied(peerRank, reason);
    }

    public void onPeerStreamLost(final int peerRank, final String reason)
    {
        submit(locked -> locked.liveness.streamLost(peerRank, reason));
    }

    public void onPeerInboxLost(final int peerRank, final String reason)
    {
        submit(locked -> locked.liveness.inboxLost(peerRank, reason));
    }

    /**
     * Sends HELLO to every peer, once this rank's transport is wired up: the start of the job ends when every rank
     * has heard from every other.
     */
    public void sayHello()
    {
        lock.lockYielding();
        try
        {
            drainCommands();
            outbound.sayHello(ProcessHandle.current().pid(), PeerLiveness.startTimeMs(ProcessHandle.current()));
        }
        finally
        {
            lock.unlock();
        }
    }

    /**
     * @return ranks that have not said HELLO yet, for example {@code [1]}; empty once every rank has.
     */
    public String missingHellos()
    {
        lock.lockYielding();
        try
        {
            return liveness.missingHellos();
        }
        finally
        {
            lock.unlock();
        }
    }

    /**
     * Starts leaving: no request is taken any more, every request still in flight fails, and every peer still there
     * is sent a BYE after everything sent to it before. Duty cycles then carry on until each answers with BYE_ACK
     * ({@link #unconfirmedGoodbyes()}). Runs on the closing thread, which may spin for the lock: it is a user thread,
     * never an actor's.
     */
    public void startClosing()
    {
        closed = true;
        lock.lockYielding();
        try
        {
            drainCommands();
            liveness.failEverything();
            if (liveness.isAttached())
            {
                outbound.sayGoodbye();
            }
        }
        finally
        {
            lock.unlock();
        }
    }

    /**
     * @return ranks this rank said BYE to that have neither answered with BYE_ACK nor been lost, for example
     * {@code [1]}; empty once everything this rank sent has been read by every peer still there.
     */
    public String unconfirmedGoodbyes()
    {
        lock.lockYielding();
        try
        {
            return liveness.isAttached() ? liveness.unconfirmedGoodbyes() : "";
        }
        finally
        {
            lock.unlock();
        }
    }

    /**
     * Detaches the transport, so that no thread touches it while it closes, and leaves the shared arenas mapped (a
     * crash: device work in flight may still use them until the device is closed).
     */
    public void disconnect()
    {
        lock.lockYielding();
        try
        {
            transport = null;
        }
        finally
        {
            lock.unlock();
        }
    }

    /**
     * Detaches the transport after {@link #startClosing()}, so that no thread touches it while it closes, and closes
     * the shared arenas.
     */
    public void detach()
    {
        lock.lockYielding();
        try
        {
            transport = null;
            hostBuffers.arena(null);
            if (arena != null)
            {
                arena.close();
            }
            if (peerArenas != null)
            {
                peerArenas.close();
                delivery.peerArenas(null);
            }
        }
        finally
        {
            lock.unlock();
        }
    }

    /**
     * @return this rank's shared arena, null where there is none.
     */
    public SharedArena sharedArena()
    {
        return arena;
    }

    /**
     * Maps peers' shared arenas as their messages name them, and creates this rank's where its length is not 0.
     */
    private void openArenas(final String directory)
    {
        if (settings.sharedArenaBytes() > 0)
        {
            try
            {
                arena = SharedArena.create(directory, rank, CrossMemory.pid(), settings.sharedArenaBytes());
            }
            catch (final RuntimeException ex)
            {
                LOG.info("rank {}: no shared arena in {} ({}); scattered messages to same-node peers are read " +
                    "from this process instead", rank, directory, ex.toString());
            }
        }
        hostBuffers.arena(arena);
        if (arena != null)
        {
            device.reserveSharedSlots(arena);
        }
        peerArenas = new PeerArenas(directory, size);
        delivery.peerArenas(peerArenas);
    }


    /**
     * @param listener told of each peer this rank loses from now on (not of those that leave with BYE).
     */
    public void lossListener(final PeerLossListener listener)
    {
        liveness.lossListener(listener);
    }

    /**
     * @return the device side of this engine's messages.
     */
    public DevicePath device()
    {
        return device;
    }

    /**
     * @return the processes of same-node peers, for the rank actor to look at.
     */
    public PeerProcesses peerProcesses()
    {
        return processes;
    }

    public static Consumer<Throwable> loggingErrorHandler(final int rank)
    {
        return error -> LOG.warn("rank {}: {}", rank, error.getMessage());
    }

    // --- duty cycle ----------------------------------------------------------------------------------------------

    private int doWork(final long nowNs)
    {
        int workCount = drainCommands();
        if (transport == null)
        {
            return workCount;
        }
        workCount += transport.doWork(inbound, FRAGMENT_LIMIT, nowNs);
        workCount += delivery.pollGets();
        for (final Peer peer : liveness.peers())
        {
            workCount += outbound.service(peer);
        }
        liveness.check(nowNs);
        return workCount;
    }

    private int drainCommands()
    {
        if (!liveness.isAttached())
        {
            return 0;
        }
        int workCount = 0;
        EngineCommand command;
        while ((command = commands.poll()) != null)
        {
            workCount++;
            run(command);
        }
        return workCount;
    }

    /**
     * Runs a command; what it throws fails its request, or is logged when it has none, and never reaches the thread
     * that submitted it (the rank actor must not stop, nor the progress thread, which an Error would end) or the
     * commands after it. An Error too (no direct memory left for a staging buffer, say): its request fails with it
     * rather than wait for ever.
     */
    private void run(final EngineCommand command)
    {
        try
        {
            command.execute(this);
        }
        catch (final RuntimeException | Error ex)
        {
            final Request request = command.request();
            if (request != null && !request.isDone())
            {
                completions.fail(request, ex);
            }
            else
            {
                LOG.error("rank {} failed to run {}", rank, command, ex);
            }
        }
    }
}
