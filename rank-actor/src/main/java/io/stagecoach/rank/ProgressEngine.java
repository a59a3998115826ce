package io.stagecoach.rank;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Predicate;

import io.aeron.logbuffer.FragmentHandler;
import io.aeron.logbuffer.Header;
import io.stagecoach.pipeline.PackedHostBuffer;
import io.stagecoach.pipeline.transport.aeron.AeronTransport;
import io.stagecoach.pipeline.transport.aeron.TransportListener;
import io.stagecoach.protocol.wire.AckFlyweight;
import io.stagecoach.protocol.wire.ClearToSendFlyweight;
import io.stagecoach.protocol.wire.DataFlyweight;
import io.stagecoach.protocol.wire.EnvelopeFlyweight;
import io.stagecoach.protocol.wire.ErrorFlyweight;
import io.stagecoach.protocol.wire.FinFlyweight;
import io.stagecoach.protocol.wire.MessageHeaderFlyweight;
import io.stagecoach.protocol.wire.MessageType;
import org.agrona.DirectBuffer;
import org.agrona.collections.Long2ObjectHashMap;
import org.agrona.concurrent.ManyToOneConcurrentLinkedQueue;
import org.agrona.concurrent.UnsafeBuffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import static io.stagecoach.rank.EngineErrors.checkMatch;
import static io.stagecoach.rank.EngineErrors.closedError;
import static io.stagecoach.rank.EngineErrors.goneError;
import static io.stagecoach.rank.EngineErrors.rejectionCode;
import static io.stagecoach.rank.EngineErrors.remoteError;

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
 */
final class ProgressEngine implements FragmentHandler, TransportListener, CommandSink
{
    private static final Logger LOG = LoggerFactory.getLogger(ProgressEngine.class);
    private static final int FRAGMENT_LIMIT = 64;

    private final int rank;
    private final int size;
    private final EngineSettings settings;
    private final StagingRequests staging;
    private final MatchQueues queues = new MatchQueues();
    private final Long2ObjectHashMap<SendOperation> sendTransfers = new Long2ObjectHashMap<>();
    private final Long2ObjectHashMap<ReceiveOperation> receiveTransfers = new Long2ObjectHashMap<>();
    private final ManyToOneConcurrentLinkedQueue<EngineCommand> commands = new ManyToOneConcurrentLinkedQueue<>();
    private final AtomicBoolean lock = new AtomicBoolean();
    private final AtomicInteger activeWaiters = new AtomicInteger();
    private final Completions completions = new Completions();
    private final WireSender sender;
    private final MessageHeaderFlyweight header = new MessageHeaderFlyweight();
    private final EnvelopeFlyweight envelope = new EnvelopeFlyweight();
    private final ClearToSendFlyweight cts = new ClearToSendFlyweight();
    private final DataFlyweight data = new DataFlyweight();
    private final FinFlyweight fin = new FinFlyweight();
    private final ErrorFlyweight error = new ErrorFlyweight();
    private final AckFlyweight ack = new AckFlyweight();
    private final UnsafeBuffer scratch;
    private AeronTransport transport;
    private Peer[] peers;
    private long nextTransferId = 1;
    private long nextPeerCheckNs;
    private volatile boolean closed;

    ProgressEngine(final int rank, final int size, final EngineSettings settings, final StagingRequests staging)
    {
        this.rank = rank;
        this.size = size;
        this.settings = settings;
        this.staging = staging;
        this.sender = new WireSender(rank, settings.eagerThresholdBytes());
        this.scratch = new UnsafeBuffer(ByteBuffer.allocateDirect(
            EnvelopeFlyweight.HEADER_LENGTH + settings.eagerThresholdBytes()));
    }

    /**
     * Attaches the transport once connected; the engine sends nothing before. Commands submitted before (a peer's
     * death reported by the launcher, a stream lost while the transport connected) wait in the command queue and run
     * here, in order.
     *
     * @param transport this rank's transport.
     */
    void attach(final AeronTransport transport)
    {
        final Peer[] attached = new Peer[size];
        for (int i = 0; i < size; i++)
        {
            attached[i] = new Peer(i, transport.publication(i), settings.eagerWindowBytes());
        }
        while (!tryLock())
        {
            Thread.yield();
        }
        try
        {
            this.peers = attached;
            this.transport = transport;
            this.nextPeerCheckNs = System.nanoTime();
            drainCommands();
        }
        finally
        {
            unlock();
        }
    }

    public int rank()
    {
        return rank;
    }

    int size()
    {
        return size;
    }

    EngineSettings settings()
    {
        return settings;
    }

    boolean isClosed()
    {
        return closed;
    }

    AwaitIdler newIdler()
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
        if (tryLock())
        {
            try
            {
                if (peers != null)
                {
                    drainCommands();
                    command.execute(this);
                    return;
                }
            }
            finally
            {
                unlock();
            }
        }
        commands.offer(command);
        if (tryLock())
        {
            try
            {
                drainCommands();
            }
            finally
            {
                unlock();
            }
        }
    }

    /**
     * Runs one duty cycle if no other thread is running one.
     *
     * @return work done, 0 when the lock was taken.
     */
    int progress()
    {
        if (!tryLock())
        {
            return 0;
        }
        int workCount;
        try
        {
            workCount = doWork(System.nanoTime());
        }
        finally
        {
            unlock();
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
    void waiterActive(final int delta)
    {
        activeWaiters.addAndGet(delta);
    }

    /**
     * @return true once every rank is reachable both ways.
     */
    boolean isWiredUp()
    {
        return transport.isWiredUp();
    }

    String missingPeers()
    {
        return transport.missingPeers();
    }

    /**
     * MPI_Iprobe, after a duty cycle: the envelope of the earliest unexpected message that matches.
     *
     * @return its status (count in bytes), or null when none matches.
     */
    Status probe(final int source, final int tag, final int contextId)
    {
        while (!tryLock())
        {
            Thread.onSpinWait();
        }
        try
        {
            doWork(System.nanoTime());
            final UnexpectedMessage message = queues.findUnexpected(source, tag, contextId, false);
            if (message == null && source != Communicator.ANY_SOURCE && peers != null && peers[source].isGone())
            {
                throw new PeerLostException(source, "rank " + source + " " + peers[source].goneReason +
                    ": probe(source=" + source + ", tag=" + Request.tagName(tag) + ")");
            }
            if (message == null && source == Communicator.ANY_SOURCE && peers != null && noLivePeer())
            {
                throw new PeerLostException(-1, "every other rank is gone: probe(source=ANY_SOURCE, tag=" +
                    Request.tagName(tag) + ")");
            }
            return message == null ? null :
                new Status(message.source, message.tag, message.packedBytes, message.packedBytes, null);
        }
        finally
        {
            unlock();
        }
    }

    /**
     * A snapshot of counters, for tests and diagnostics.
     *
     * @param peerRank a rank.
     * @return eager sends to it, rendezvous sends to it, unexpected messages held, unexpected payload bytes held,
     * posted receives waiting, eager credit left towards it.
     */
    long[] counters(final int peerRank)
    {
        while (!tryLock())
        {
            Thread.onSpinWait();
        }
        try
        {
            final Peer peer = peers[peerRank];
            return new long[]{ peer.eagerSends, peer.rendezvousSends, queues.unexpectedCount(),
                queues.unexpectedBytes(), queues.postedCount(), peer.eagerCreditBytes };
        }
        finally
        {
            unlock();
        }
    }

    // --- commands ------------------------------------------------------------------------------------------------

    void postSend(final SendOperation send)
    {
        final Peer peer = peers[send.destination];
        if (closed || peer.isGone())
        {
            completions.fail(send.request, closed ? closedError(rank, send.request) : goneError(peer, send.request));
            send.releaseStaged();
            return;
        }
        if (send.state == SendOperation.STAGING && send.packedBytes <= settings.eagerThresholdBytes())
        {
            try
            {
                send.staged = staging.packNow(send);
                send.state = SendOperation.READY;
            }
            catch (final RuntimeException ex)
            {
                completions.fail(send.request, ex);
                return;
            }
        }
        send.transferId = nextTransferId++;
        if (peer.pending.isEmpty() && send.state == SendOperation.READY)
        {
            final int result = emit(peer, send);
            if (result == WireSender.SENT)
            {
                return;
            }
            if (result == WireSender.GONE)
            {
                peerGone(peer, "its inbox publication closed");
                completions.fail(send.request, goneError(peer, send.request));
                return;
            }
        }
        peer.pending.addLast(send);
        if (send.state == SendOperation.STAGING)
        {
            staging.stageOut(send);
        }
        emitPending(peer);
    }

    void postReceive(final ReceiveOperation receive)
    {
        if (closed)
        {
            completions.fail(receive.request, closedError(rank, receive.request));
            return;
        }
        final UnexpectedMessage message = queues.findUnexpected(
            receive.source, receive.tag, receive.contextId, true);
        if (message != null)
        {
            matchUnexpected(receive, message);
            return;
        }
        if (receive.source != Communicator.ANY_SOURCE && peers[receive.source].isGone())
        {
            completions.fail(receive.request, goneError(peers[receive.source], receive.request));
            return;
        }
        if (receive.source == Communicator.ANY_SOURCE && noLivePeer())
        {
            completions.fail(receive.request,
                new PeerLostException(-1, "every other rank is gone: " + receive.request));
            return;
        }
        queues.post(receive);
    }

    void sendStaged(final SendOperation send, final PackedHostBuffer packed, final Throwable failure)
    {
        if (failure != null || send.request.isDone())
        {
            if (packed != null)
            {
                packed.release();
            }
            if (failure != null)
            {
                completions.fail(send.request, failure);
            }
        }
        else
        {
            send.staged = packed;
            send.state = SendOperation.READY;
        }
        emitPending(peers[send.destination]);
    }

    void receiveStaged(final ReceiveOperation receive, final Throwable failure)
    {
        if (failure != null)
        {
            completions.fail(receive.request, failure);
        }
        else
        {
            completions.completeReceive(receive);
        }
    }

    void peerDied(final int peerRank, final String reason)
    {
        if (peerRank >= 0 && peerRank < size && peerRank != rank)
        {
            peerGone(peers[peerRank], "died: " + reason);
        }
    }

    /**
     * Says goodbye to every peer and fails every request still in flight. Runs on the closing thread, which may
     * spin for the lock: it is a user thread, never an actor's.
     *
     * @param byeTimeoutNs how long to retry BYE messages against back-pressure.
     */
    void close(final long byeTimeoutNs)
    {
        closed = true;
        while (!tryLock())
        {
            Thread.yield();
        }
        try
        {
            drainCommands();
            if (peers != null)
            {
                sayGoodbye(byeTimeoutNs);
            }
            failEverything();
        }
        finally
        {
            unlock();
        }
    }

    /**
     * Detaches the transport after {@link #close(long)}, so that no thread touches it while it closes.
     */
    void detach()
    {
        while (!tryLock())
        {
            Thread.yield();
        }
        transport = null;
        unlock();
    }

    // --- duty cycle ----------------------------------------------------------------------------------------------

    private int doWork(final long nowNs)
    {
        int workCount = drainCommands();
        if (transport == null)
        {
            return workCount;
        }
        workCount += transport.doWork(this, FRAGMENT_LIMIT, nowNs);
        for (final Peer peer : peers)
        {
            if (!peer.isGone())
            {
                workCount += serviceOutbound(peer);
            }
        }
        if (nowNs - nextPeerCheckNs >= 0)
        {
            nextPeerCheckNs = nowNs + settings.peerCheckIntervalNs();
            checkPeers(nowNs);
        }
        return workCount;
    }

    private int drainCommands()
    {
        if (peers == null)
        {
            return 0;
        }
        int workCount = 0;
        EngineCommand command;
        while ((command = commands.poll()) != null)
        {
            workCount++;
            try
            {
                command.execute(this);
            }
            catch (final RuntimeException ex)
            {
                LOG.error("rank {} failed to run {}", rank, command, ex);
            }
        }
        return workCount;
    }

    private int serviceOutbound(final Peer peer)
    {
        int workCount = 0;
        if (peer.hasOutboundWork())
        {
            workCount += flushControl(peer) + emitPending(peer) + streamData(peer);
        }
        if (peer.owedCreditBytes >= settings.creditFlushBytes() && peer.control.isEmpty() &&
            sender.sendHeaderOnly(peer, MessageType.CREDIT) == WireSender.SENT)
        {
            workCount++;
        }
        return workCount;
    }

    private int flushControl(final Peer peer)
    {
        int workCount = 0;
        ControlMessage message;
        while ((message = peer.control.peekFirst()) != null)
        {
            final int result = sender.sendControl(peer, message);
            if (result == WireSender.BACK_PRESSURED)
            {
                break;
            }
            peer.control.pollFirst();
            workCount++;
        }
        return workCount;
    }

    private int emitPending(final Peer peer)
    {
        int workCount = 0;
        SendOperation send;
        while ((send = peer.pending.peekFirst()) != null && !peer.isGone())
        {
            if (send.request.isDone())
            {
                peer.pending.pollFirst();
                send.releaseStaged();
                continue;
            }
            if (send.state == SendOperation.STAGING)
            {
                break;
            }
            final int result = emit(peer, send);
            if (result == WireSender.BACK_PRESSURED)
            {
                break;
            }
            peer.pending.pollFirst();
            if (result == WireSender.GONE)
            {
                failAll(peer.pending, peer);
                peerGone(peer, "its inbox publication closed");
                completions.fail(send.request, goneError(peer, send.request));
                break;
            }
            workCount++;
        }
        return workCount;
    }

    /**
     * Sends the envelope of the send at the head of its peer's queue (or of a send that would be there alone).
     *
     * @return {@link WireSender#SENT} when it went out or failed for good (the request then carries the error),
     * {@link WireSender#BACK_PRESSURED} to try again later, {@link WireSender#GONE} when the peer is unreachable.
     */
    private int emit(final Peer peer, final SendOperation send)
    {
        final int type =
            WireSender.protocolFor(send.packedBytes, settings.eagerThresholdBytes(), peer.eagerCreditBytes);
        final int result;
        try
        {
            result = sender.sendEnvelope(peer, send, type, peer.nextSequence);
        }
        catch (final RuntimeException ex)
        {
            send.releaseStaged();
            completions.fail(send.request, ex);
            return WireSender.SENT;
        }
        if (result == WireSender.SENT)
        {
            peer.nextSequence++;
            sent(peer, send, type);
        }
        return result;
    }

    private void sent(final Peer peer, final SendOperation send, final int type)
    {
        if (type == MessageType.RTS)
        {
            peer.rendezvousSends++;
        }
        if (type == MessageType.EAGER)
        {
            peer.eagerSends++;
            peer.eagerCreditBytes -= WireSender.eagerLength(send.packedBytes);
            if (!send.synchronous)
            {
                send.releaseStaged();
                completions.completeSend(send);
                return;
            }
        }
        sendTransfers.put(send.transferId, send);
    }

    private int streamData(final Peer peer)
    {
        int workCount = 0;
        long budgetBytes = settings.dataBudgetBytes();
        SendOperation send;
        while (budgetBytes > 0 && (send = peer.streaming.peekFirst()) != null)
        {
            final int result;
            if (send.sentBytes < send.packedBytes)
            {
                final int lengthBytes = (int)Math.min(peer.dataFragmentBytes, send.packedBytes - send.sentBytes);
                result = sendDataSafely(peer, send, lengthBytes);
                if (result == WireSender.SENT)
                {
                    send.sentBytes += lengthBytes;
                    budgetBytes -= lengthBytes;
                }
            }
            else
            {
                result = sender.sendFin(peer, send);
                if (result == WireSender.SENT)
                {
                    peer.streaming.pollFirst();
                    sendTransfers.remove(send.transferId);
                    send.releaseStaged();
                    completions.completeSend(send);
                }
            }
            if (result == WireSender.BACK_PRESSURED)
            {
                break;
            }
            if (result == WireSender.GONE)
            {
                peerGone(peer, "its inbox publication closed");
                break;
            }
            workCount++;
        }
        return workCount;
    }

    private int sendDataSafely(final Peer peer, final SendOperation send, final int lengthBytes)
    {
        try
        {
            return sender.sendData(peer, send, lengthBytes);
        }
        catch (final RuntimeException ex)
        {
            peer.streaming.remove(send);
            sendTransfers.remove(send.transferId);
            send.releaseStaged();
            completions.fail(send.request, ex);
            control(peer, new ControlMessage(MessageType.ERROR, send.receiverTransferId, 0, 0,
                ErrorFlyweight.FLAG_RECEIVE, ErrorFlyweight.CODE_PROTOCOL, "rank " + rank + " could not read the " +
                "send buffer: " + ex.getMessage()));
            return WireSender.SENT;
        }
    }

    private void checkPeers(final long nowNs)
    {
        for (final Peer peer : peers)
        {
            if (!peer.isGone() && peer.inboxLostAtNs != -1 &&
                nowNs - peer.inboxLostAtNs >= settings.livenessTimeoutNs())
            {
                peerGone(peer, peer.inboxLostReason + " and no goodbye arrived within " +
                    settings.livenessTimeoutNs() / 1_000_000 + " ms");
            }
        }
    }

    // --- inbound -------------------------------------------------------------------------------------------------

    public void onFragment(final DirectBuffer buffer, final int offset, final int length, final Header aeronHeader)
    {
        final int sessionRank = transport.rankOfSession(aeronHeader.sessionId());
        if (sessionRank < 0 || peers[sessionRank].isGone())
        {
            return;
        }
        final String problem = MessageHeaderFlyweight.validate(buffer, offset, length);
        if (problem != null)
        {
            protocolError(peers[sessionRank], problem);
            return;
        }
        header.wrap(buffer, offset, length);
        if (header.sourceRank() != sessionRank || header.destinationRank() != rank)
        {
            protocolError(peers[sessionRank], MessageType.name(header.type()) + " names source " +
                header.sourceRank() + " and destination " + header.destinationRank() + " but came from rank " +
                sessionRank + " to rank " + rank);
            return;
        }
        final Peer peer = peers[sessionRank];
        peer.eagerCreditBytes += header.creditBytes();
        dispatch(peer, header.type(), buffer, offset, length);
    }

    private void dispatch(
        final Peer peer, final int type, final DirectBuffer buffer, final int offset, final int length)
    {
        switch (type)
        {
            case MessageType.EAGER:
                onEager(peer, buffer, offset, length);
                break;
            case MessageType.RTS:
                onRts(peer, buffer, offset, length);
                break;
            case MessageType.CTS:
                onCts(peer, cts.wrap(buffer, offset, length));
                break;
            case MessageType.DATA:
                onData(peer, buffer, offset, length);
                break;
            case MessageType.FIN:
                onFin(peer, fin.wrap(buffer, offset, length));
                break;
            case MessageType.ERROR:
                onError(peer, error.wrap(buffer, offset, length));
                break;
            case MessageType.ACK:
                onAck(peer, ack.wrap(buffer, offset, length));
                break;
            case MessageType.BYE:
                peer.closed = true;
                peerGone(peer, "closed its communicator");
                break;
            default:
                break;
        }
    }

    private void onEager(final Peer peer, final DirectBuffer buffer, final int offset, final int length)
    {
        envelope.wrap(buffer, offset, length);
        if (!inSequence(peer, envelope.sequence()))
        {
            return;
        }
        final ReceiveOperation receive = queues.takePosted(peer.rank, envelope.tag(), envelope.contextId());
        if (receive == null)
        {
            final byte[] payload = new byte[(int)envelope.packedBytes()];
            buffer.getBytes(offset + EnvelopeFlyweight.HEADER_LENGTH, payload);
            queues.addUnexpected(unexpected(MessageType.EAGER, peer.rank, payload, length));
            return;
        }
        peer.owedCreditBytes += length;
        deliverEager(receive, peer, envelope.tag(), (envelope.flags() & EnvelopeFlyweight.FLAG_SYNC) != 0,
            envelope.transferId(), envelope.packedBytes(), envelope.signature(0), envelope.signature(1),
            envelope.signature(2), offHeapAddress(buffer, offset + EnvelopeFlyweight.HEADER_LENGTH,
            (int)envelope.packedBytes()));
    }

    private void onRts(final Peer peer, final DirectBuffer buffer, final int offset, final int length)
    {
        envelope.wrap(buffer, offset, length);
        if (!inSequence(peer, envelope.sequence()))
        {
            return;
        }
        final ReceiveOperation receive = queues.takePosted(peer.rank, envelope.tag(), envelope.contextId());
        if (receive == null)
        {
            queues.addUnexpected(unexpected(MessageType.RTS, peer.rank, null, 0));
            return;
        }
        startRendezvous(receive, peer, envelope.tag(), envelope.transferId(), envelope.packedBytes(),
            envelope.signature(0), envelope.signature(1), envelope.signature(2));
    }

    private UnexpectedMessage unexpected(final int type, final int source, final byte[] payload, final int credit)
    {
        return new UnexpectedMessage(type, source, envelope.tag(), envelope.contextId(),
            (envelope.flags() & EnvelopeFlyweight.FLAG_SYNC) != 0, envelope.transferId(), envelope.packedBytes(),
            envelope.signature(0), envelope.signature(1), envelope.signature(2), payload, credit);
    }

    private void matchUnexpected(final ReceiveOperation receive, final UnexpectedMessage message)
    {
        final Peer peer = peers[message.source];
        if (message.isEager())
        {
            peer.owedCreditBytes += message.creditBytes;
            scratch.putBytes(0, message.payload);
            deliverEager(receive, peer, message.tag, message.synchronous, message.senderTransferId,
                message.packedBytes, message.signatureHash, message.signatureLength, message.signatureSizeBytes,
                scratch.addressOffset());
        }
        else if (peer.isGone())
        {
            completions.fail(receive.request, goneError(peer, receive.request));
        }
        else
        {
            startRendezvous(receive, peer, message.tag, message.senderTransferId, message.packedBytes,
                message.signatureHash, message.signatureLength, message.signatureSizeBytes);
        }
    }

    private void deliverEager(
        final ReceiveOperation receive,
        final Peer peer,
        final int tag,
        final boolean synchronous,
        final long senderTransferId,
        final long packedBytes,
        final long signatureHash,
        final long signatureLength,
        final long signatureSizeBytes,
        final long payloadAddress)
    {
        final RuntimeException mismatch =
            checkMatch(receive, peer.rank, tag, packedBytes, signatureHash, signatureLength, signatureSizeBytes);
        matched(receive, peer.rank, tag, packedBytes);
        if (mismatch != null)
        {
            rejectSend(peer, senderTransferId, receive, mismatch);
            return;
        }
        if (synchronous)
        {
            sendAck(peer, senderTransferId);
        }
        try
        {
            if (receive.buffer.isDevice())
            {
                receive.staging = staging.allocate(packedBytes);
            }
            receive.write(payloadAddress, 0, (int)packedBytes);
            receive.receivedBytes = packedBytes;
        }
        catch (final RuntimeException ex)
        {
            receive.releaseStaging();
            completions.fail(receive.request, ex);
            return;
        }
        finishReceive(receive);
    }

    private void startRendezvous(
        final ReceiveOperation receive,
        final Peer peer,
        final int tag,
        final long senderTransferId,
        final long packedBytes,
        final long signatureHash,
        final long signatureLength,
        final long signatureSizeBytes)
    {
        final RuntimeException mismatch =
            checkMatch(receive, peer.rank, tag, packedBytes, signatureHash, signatureLength, signatureSizeBytes);
        matched(receive, peer.rank, tag, packedBytes);
        if (mismatch != null)
        {
            rejectSend(peer, senderTransferId, receive, mismatch);
            return;
        }
        if (receive.buffer.isDevice())
        {
            try
            {
                receive.staging = staging.allocate(packedBytes);
            }
            catch (final RuntimeException ex)
            {
                completions.fail(receive.request, ex);
                control(peer, new ControlMessage(MessageType.ERROR, senderTransferId, 0, 0, ErrorFlyweight.FLAG_SEND,
                    ErrorFlyweight.CODE_STAGING, "rank " + rank + " could not stage the receive: " + ex.getMessage()));
                return;
            }
        }
        receive.transferId = nextTransferId++;
        receiveTransfers.put(receive.transferId, receive);
        if (!(peer.control.isEmpty() && sender.sendCts(peer, senderTransferId, receive.transferId, packedBytes) !=
            WireSender.BACK_PRESSURED))
        {
            peer.control.addLast(new ControlMessage(
                MessageType.CTS, senderTransferId, receive.transferId, packedBytes, 0, 0, null));
        }
    }

    private void onCts(final Peer peer, final ClearToSendFlyweight message)
    {
        final SendOperation send = sendTransfers.get(message.senderTransferId());
        if (send == null || send.destination != peer.rank || send.receiverTransferId != 0)
        {
            LOG.debug("rank {} ignores a CTS from rank {} for transfer {}", rank, peer.rank,
                message.senderTransferId());
            return;
        }
        send.receiverTransferId = message.receiverTransferId();
        peer.streaming.addLast(send);
    }

    private void onData(final Peer peer, final DirectBuffer buffer, final int offset, final int length)
    {
        data.wrap(buffer, offset, length);
        final ReceiveOperation receive = receiveTransfers.get(data.receiverTransferId());
        if (receive == null || receive.matchedSource != peer.rank)
        {
            return;
        }
        final int lengthBytes = data.payloadLength();
        if (data.packedOffset() != receive.receivedBytes || receive.receivedBytes + lengthBytes > receive.packedBytes)
        {
            receiveTransfers.remove(receive.transferId);
            receive.releaseStaging();
            completions.fail(receive.request, new StagecoachException("rank " + peer.rank +
                " sent DATA at packed offset " + data.packedOffset() + " of " + lengthBytes + " bytes, but " + receive.receivedBytes + " of " +
                receive.packedBytes + " had arrived: " + receive.request));
            return;
        }
        try
        {
            receive.write(buffer.addressOffset() + offset + DataFlyweight.HEADER_LENGTH, data.packedOffset(),
                lengthBytes);
        }
        catch (final RuntimeException ex)
        {
            receiveTransfers.remove(receive.transferId);
            receive.releaseStaging();
            completions.fail(receive.request, ex);
            return;
        }
        receive.receivedBytes += lengthBytes;
    }

    private void onFin(final Peer peer, final FinFlyweight message)
    {
        final ReceiveOperation receive = receiveTransfers.get(message.receiverTransferId());
        if (receive == null || receive.matchedSource != peer.rank)
        {
            return;
        }
        receiveTransfers.remove(receive.transferId);
        if (receive.receivedBytes != receive.packedBytes || message.totalBytes() != receive.packedBytes)
        {
            receive.releaseStaging();
            completions.fail(receive.request, new StagecoachException("rank " + peer.rank + " finished a transfer of " +
                message.totalBytes() + " bytes after " + receive.receivedBytes + " of " + receive.packedBytes +
                " arrived: " + receive.request));
            return;
        }
        finishReceive(receive);
    }

    private void onError(final Peer peer, final ErrorFlyweight message)
    {
        final String text = message.message();
        final int code = message.errorCode();
        if ((message.flags() & ErrorFlyweight.FLAG_SEND) != 0)
        {
            final SendOperation send = sendTransfers.remove(message.transferId());
            if (send == null || send.destination != peer.rank)
            {
                settings.asyncErrorHandler().accept(remoteError(peer.rank, code, "a message sent earlier", text));
                return;
            }
            peer.streaming.remove(send);
            send.releaseStaged();
            completions.fail(send.request, remoteError(peer.rank, code, send.request.toString(), text));
        }
        else if ((message.flags() & ErrorFlyweight.FLAG_RECEIVE) != 0)
        {
            final ReceiveOperation receive = receiveTransfers.remove(message.transferId());
            if (receive != null && receive.matchedSource == peer.rank)
            {
                receive.releaseStaging();
                completions.fail(receive.request, remoteError(peer.rank, code, receive.request.toString(), text));
            }
        }
    }

    private void onAck(final Peer peer, final AckFlyweight message)
    {
        final SendOperation send = sendTransfers.get(message.senderTransferId());
        if (send != null && send.destination == peer.rank && send.synchronous && send.receiverTransferId == 0)
        {
            sendTransfers.remove(send.transferId);
            send.releaseStaged();
            completions.completeSend(send);
        }
    }

    private boolean inSequence(final Peer peer, final long sequence)
    {
        if (sequence != peer.expectedSequence)
        {
            protocolError(peer, "message sequence " + sequence + " arrived where " + peer.expectedSequence +
                " was due (a message was lost or reordered)");
            return false;
        }
        peer.expectedSequence++;
        return true;
    }

    private long offHeapAddress(final DirectBuffer buffer, final int index, final int lengthBytes)
    {
        if (buffer.byteArray() == null)
        {
            return buffer.addressOffset() + index;
        }
        scratch.putBytes(0, buffer, index, lengthBytes);
        return scratch.addressOffset();
    }

    // --- matching rules ------------------------------------------------------------------------------------------

    private void rejectSend(
        final Peer peer, final long senderTransferId, final ReceiveOperation receive, final RuntimeException mismatch)
    {
        completions.fail(receive.request, mismatch);
        control(peer, new ControlMessage(MessageType.ERROR, senderTransferId, 0, 0, ErrorFlyweight.FLAG_SEND,
            rejectionCode(mismatch),
            "rank " + rank + " rejected the message: " + mismatch.getMessage()));
    }

    // --- completion and failure ----------------------------------------------------------------------------------

    private static void matched(final ReceiveOperation receive, final int source, final int tag, final long bytes)
    {
        receive.matchedSource = source;
        receive.matchedTag = tag;
        receive.packedBytes = bytes;
    }

    private void finishReceive(final ReceiveOperation receive)
    {
        if (receive.staging != null)
        {
            if (receive.receivedBytes > settings.eagerThresholdBytes())
            {
                staging.stageIn(receive);
                return;
            }
            try
            {
                staging.unpackNow(receive);
            }
            catch (final RuntimeException ex)
            {
                completions.fail(receive.request, ex);
                return;
            }
        }
        completions.completeReceive(receive);
    }

    private void sendAck(final Peer peer, final long senderTransferId)
    {
        if (!(peer.control.isEmpty() && sender.sendAck(peer, senderTransferId) != WireSender.BACK_PRESSURED))
        {
            peer.control.addLast(new ControlMessage(MessageType.ACK, senderTransferId, 0, 0, 0, 0, null));
        }
    }

    private void control(final Peer peer, final ControlMessage message)
    {
        if (!(peer.control.isEmpty() && sender.sendControl(peer, message) != WireSender.BACK_PRESSURED))
        {
            peer.control.addLast(message);
        }
    }

    private void protocolError(final Peer peer, final String problem)
    {
        LOG.error("rank {} drops rank {} after a protocol error: {}", rank, peer.rank, problem);
        peerGone(peer, "broke the protocol: " + problem);
    }

    private void peerGone(final Peer peer, final String reason)
    {
        if (peer.isGone())
        {
            return;
        }
        peer.goneReason = reason;
        if (!peer.closed)
        {
            LOG.warn("rank {} lost rank {}: {}", rank, peer.rank, reason);
        }
        failAll(peer.pending, peer);
        failAll(peer.streaming, peer);
        peer.control.clear();
        failSendTransfers(send -> send.destination == peer.rank, peer);
        failReceiveTransfers(receive -> receive.matchedSource == peer.rank, peer);
        final boolean noneLeft = noLivePeer();
        queues.drainPosted(receive -> receive.source == peer.rank ||
            receive.source == Communicator.ANY_SOURCE && noneLeft, receive -> completions.fail(receive.request,
            receive.source == peer.rank ? goneError(peer, receive.request) :
            new PeerLostException(peer.rank, "every other rank is gone, the last was rank " + peer.rank + " (" +
            reason + "): " + receive.request)));
    }

    private void failAll(final ArrayDeque<SendOperation> sends, final Peer peer)
    {
        SendOperation send;
        while ((send = sends.pollFirst()) != null)
        {
            sendTransfers.remove(send.transferId);
            send.releaseStaged();
            completions.fail(send.request, goneError(peer, send.request));
        }
    }

    private void failSendTransfers(final Predicate<SendOperation> filter, final Peer peer)
    {
        final Iterator<SendOperation> iterator = sendTransfers.values().iterator();
        while (iterator.hasNext())
        {
            final SendOperation send = iterator.next();
            if (filter.test(send))
            {
                iterator.remove();
                send.releaseStaged();
                completions.fail(send.request,
                    peer == null ? closedError(rank, send.request) : goneError(peer, send.request));
            }
        }
    }

    private void failReceiveTransfers(final Predicate<ReceiveOperation> filter, final Peer peer)
    {
        final Iterator<ReceiveOperation> iterator = receiveTransfers.values().iterator();
        while (iterator.hasNext())
        {
            final ReceiveOperation receive = iterator.next();
            if (filter.test(receive))
            {
                iterator.remove();
                receive.releaseStaging();
                completions.fail(receive.request, peer == null ? closedError(rank, receive.request) :
                    goneError(peer, receive.request));
            }
        }
    }

    private boolean noLivePeer()
    {
        for (final Peer peer : peers)
        {
            if (peer.rank != rank && !peer.isGone())
            {
                return false;
            }
        }
        return size > 1;
    }

    // --- liveness ------------------------------------------------------------------------------------------------

    public void onPeerStreamLost(final int peerRank, final String reason)
    {
        submit(locked -> locked.streamLost(peerRank, reason));
    }

    public void onPeerInboxLost(final int peerRank, final String reason)
    {
        submit(locked -> locked.inboxLost(peerRank, reason));
    }

    private void streamLost(final int peerRank, final String reason)
    {
        final Peer peer = peers[peerRank];
        if (!peer.closed)
        {
            peerGone(peer, "is gone: " + reason);
        }
    }

    private void inboxLost(final int peerRank, final String reason)
    {
        final Peer peer = peers[peerRank];
        if (!peer.closed && peer.inboxLostAtNs == -1)
        {
            peer.inboxLostAtNs = System.nanoTime();
            peer.inboxLostReason = "is gone: " + reason;
        }
    }

    // --- closing -------------------------------------------------------------------------------------------------

    private void sayGoodbye(final long timeoutNs)
    {
        for (final Peer peer : peers)
        {
            if (peer.rank != rank && !peer.isGone())
            {
                peer.pending.clear();
                peer.streaming.clear();
                control(peer, new ControlMessage(MessageType.BYE, 0, 0, 0, 0, 0, null));
            }
        }
        final long deadlineNs = System.nanoTime() + timeoutNs;
        boolean flushed = false;
        while (!flushed && System.nanoTime() - deadlineNs < 0)
        {
            flushed = true;
            for (final Peer peer : peers)
            {
                if (!peer.isGone())
                {
                    flushControl(peer);
                    flushed &= peer.control.isEmpty();
                }
            }
            if (!flushed)
            {
                Thread.yield();
            }
        }
    }

    private void failEverything()
    {
        if (peers != null)
        {
            for (final Peer peer : peers)
            {
                failAllClosed(peer.pending);
                failAllClosed(peer.streaming);
            }
        }
        failSendTransfers(send -> true, null);
        failReceiveTransfers(receive -> true, null);
        queues.drainPosted(receive -> true,
            receive -> completions.fail(receive.request, closedError(rank, receive.request)));
        while (queues.pollUnexpected() != null)
        {
            continue;
        }
    }

    private void failAllClosed(final ArrayDeque<SendOperation> sends)
    {
        SendOperation send;
        while ((send = sends.pollFirst()) != null)
        {
            send.releaseStaged();
            completions.fail(send.request, closedError(rank, send.request));
        }
    }

    // --- lock ----------------------------------------------------------------------------------------------------

    private boolean tryLock()
    {
        return !lock.get() && lock.compareAndSet(false, true);
    }

    private void unlock()
    {
        if (completions.isEmpty())
        {
            lock.setRelease(false);
            return;
        }
        final Request[] completed = completions.takeAll();
        lock.setRelease(false);
        for (final Request request : completed)
        {
            request.completeStage(request.status());
        }
    }

    StagingRequests staging()
    {
        return staging;
    }

    static Consumer<Throwable> loggingErrorHandler(final int rank)
    {
        return error -> LOG.warn("rank {}: {}", rank, error.getMessage());
    }
}
