package io.stagecoach.rank.engine;

import java.util.BitSet;

import io.stagecoach.device.IpcHandle;
import io.stagecoach.pipeline.PackedHostBuffer;
import io.stagecoach.pipeline.trace.TracedPath;
import io.stagecoach.pipeline.transfer.TransferPipeline;
import io.stagecoach.protocol.wire.ErrorFlyweight;
import io.stagecoach.protocol.wire.MessageType;
import io.stagecoach.rank.memory.HostBufferPool;
import io.stagecoach.rank.memory.SharedArena;
import org.agrona.UnsafeApi;

import static io.stagecoach.rank.engine.EngineErrors.goneError;

/**
 * The outbound side of the engine: posts sends to their peer's queue, chooses the protocol of each at emission
 * (EAGER within the threshold and the destination's eager credit, RTS otherwise), streams DATA and FIN of matched
 * rendezvous transfers within a budget per duty cycle, and sends control messages (CTS, ACK, ERROR, CREDIT, BYE).
 * Back-pressure leaves a message at the head of its queue, to be retried on the next duty cycle.
 */
final class Outbound
{
    /** Packed bytes per step of a send packed into the shared arena while its receiver unpacks. */
    static final long PACK_CHUNK_BYTES = 8 * 1024;

    private final int rank;
    private final EngineSettings settings;
    private final DevicePath device;
    private final CommandSink engine;
    private final WireSender sender;
    private final Transfers transfers;
    private final Completions completions;
    private final PeerLiveness liveness;
    private final HostBufferPool hostBuffers;

    Outbound(
        final int rank,
        final EngineSettings settings,
        final DevicePath device,
        final CommandSink engine,
        final Transfers transfers,
        final Completions completions,
        final PeerLiveness liveness,
        final HostBufferPool hostBuffers)
    {
        this.rank = rank;
        this.settings = settings;
        this.device = device;
        this.engine = engine;
        this.sender = new WireSender(rank, settings.eagerThresholdBytes());
        this.transfers = transfers;
        this.completions = completions;
        this.liveness = liveness;
        this.hostBuffers = hostBuffers;
    }

    /**
     * Posts a send: emitted at once when nothing is queued before it, otherwise queued behind its peer's sends.
     * A device buffer within the eager threshold is staged here; a larger one starts the stage pipeline, which packs
     * it in chunks while its RTS goes out.
     *
     * @param send a new send of an open engine.
     */
    void post(final SendOperation send)
    {
        final Peer peer = liveness.peer(send.destination);
        if (peer.isGone())
        {
            completions.fail(send.request, goneError(peer, send.request));
            send.releaseStaged();
            return;
        }
        send.transferId = transfers.nextId();
        if (send.state == SendOperation.STAGING)
        {
            try
            {
                final boolean ipc =
                    device.takesOneSided(send.packedBytes, peer.readable, settings) && offerIpc(peer, send);
                if (!ipc && send.packedBytes <= settings.eagerThresholdBytes())
                {
                    send.staged = device.packNow(send);
                }
                else if (!ipc)
                {
                    send.chunked = device.startSend(engine, send, peer.readable);
                }
                send.state = SendOperation.READY;
            }
            catch (final RuntimeException ex)
            {
                completions.fail(send.request, ex);
                return;
            }
        }
        if (peer.readable && !send.buffer.isDevice() && send.contiguousAddress != 0 &&
            send.packedBytes > settings.eagerThresholdBytes() && send.packedBytes <= HostBufferPool.MAX_BUFFER_BYTES)
        {
            describeInArena(send);
        }
        if (peer.readable && send.chunked == null && send.readableAddress() == 0 &&
            send.packedBytes > settings.eagerThresholdBytes() && send.packedBytes <= HostBufferPool.MAX_BUFFER_BYTES)
        {
            try
            {
                send.description = DirectDescription.write(send, hostBuffers);
                if (send.description != null)
                {
                    send.sharedOffset = hostBuffers.sharedOffset(send.description.address());
                }
                else
                {
                    packWhole(send);
                }
            }
            catch (final RuntimeException ex)
            {
                completions.fail(send.request, ex);
                return;
            }
        }
        emitOrQueue(peer, send);
        if (send.packPending)
        {
            packInChunks(send);
        }
    }

    /**
     * Describes a contiguous host send whose buffer lies in this rank's shared arena, so that a same-node receiver
     * maps it where it lies: a host receiver copies out of it, a device receiver's device reads it in place. Where it
     * does not lie there, or the arena has no room for the description, the receiver reads it out of this process.
     */
    private void describeInArena(final SendOperation send)
    {
        try
        {
            send.description = DirectDescription.write(send, hostBuffers);
        }
        catch (final RuntimeException ex)
        {
            send.description = null;
        }
        if (send.description != null)
        {
            send.sharedOffset = hostBuffers.sharedOffset(send.description.address());
        }
    }

    /**
     * Offers a large device send to a same-node receiver over IPC: the buffer's handle and layout go into this rank's
     * shared arena, for the receiver to get the message out of the buffer itself.
     *
     * @return false when the peer is on another node, the path is forced to the stage pipeline, the buffer cannot be
     * exported or the arena has no room: the stage pipeline takes the send.
     */
    private boolean offerIpc(final Peer peer, final SendOperation send)
    {
        if (!peer.readable)
        {
            return false;
        }
        final IpcHandle handle = device.exportIpc(send);
        final PackedHostBuffer description = handle == null ? null : IpcDescription.write(send, handle, hostBuffers);
        if (description == null)
        {
            return false;
        }
        send.description = description;
        send.deviceIpc = true;
        send.sharedOffset = hostBuffers.sharedOffset(description.address());
        device.offered(peer.rank, handle);
        return true;
    }

    /**
     * Tells each peer still there that was offered an allocation over IPC that its owner freed it, after what was
     * sent to it before: the peer drops its mapping of that export.
     */
    void releaseExport(final long allocationAddress, final long exportNumber)
    {
        final BitSet ranks = device.takeOffers(allocationAddress, exportNumber);
        for (int peerRank = ranks.nextSetBit(0); peerRank >= 0; peerRank = ranks.nextSetBit(peerRank + 1))
        {
            final Peer peer = liveness.peer(peerRank);
            if (!peer.isGone())
            {
                control(peer, new ControlMessage(MessageType.IPC_RELEASE, allocationAddress, exportNumber, 0, 0, 0,
                    null));
            }
        }
    }

    /**
     * A CTS answered a send offered over IPC: the receiver could not get it, and the stage pipeline packs it now, to
     * stream it as DATA.
     *
     * @return false when the pipeline could not start: the send failed and the receiver is told.
     */
    boolean stageAfterCts(final Peer peer, final SendOperation send, final long receiverTransferId)
    {
        send.description.release();
        send.description = null;
        try
        {
            send.chunked = device.startSend(engine, send, false);
            return true;
        }
        catch (final RuntimeException ex)
        {
            transfers.sends.remove(send.transferId);
            completions.fail(send.request, ex);
            control(peer, stagingError(receiverTransferId, ex));
            return false;
        }
    }

    private void emitOrQueue(final Peer peer, final SendOperation send)
    {
        if (peer.pending.isEmpty() && send.state == SendOperation.READY)
        {
            final int result = emit(peer, send);
            if (result == WireSender.SENT)
            {
                return;
            }
            if (result == WireSender.GONE)
            {
                liveness.peerGone(peer, "its inbox publication closed");
                completions.fail(send.request, goneError(peer, send.request));
                return;
            }
        }
        peer.pending.addLast(send);
        emitPending(peer);
    }

    /**
     * Packs a scattered host message whole into the shared arena, where a same-node receiver unpacks it straight out
     * of its mapping, or into a pooled buffer, which it reads in one range: one pack here and one copy there,
     * without the rendezvous round trip of CTS before DATA.
     */
    private void packWhole(final SendOperation send)
    {
        final PackedHostBuffer shared = hostBuffers.acquireShared(send.packedBytes + SharedArena.PROGRESS_BYTES);
        if (shared != null)
        {
            final long packedAddress = shared.address() + SharedArena.PROGRESS_BYTES;
            UnsafeApi.putLongVolatile(null, shared.address(), 0);
            send.staged = new PackedHostBuffer(packedAddress, send.packedBytes, shared::release);
            send.sharedOffset = hostBuffers.sharedOffset(packedAddress);
            send.packPending = true;
            return;
        }
        final PackedHostBuffer packed = hostBuffers.acquire(send.packedBytes);
        try
        {
            send.compiled.pack(send.buffer.baseAddress(), send.count, 0, send.packedBytes, packed.address());
        }
        catch (final RuntimeException ex)
        {
            packed.release();
            throw ex;
        }
        send.staged = packed;
    }

    /**
     * Packs a send into its arena buffer after its RTS went out, {@link #PACK_CHUNK_BYTES} at a time, counting the
     * bytes packed in the buffer's first long: the receiver unpacks each chunk while this packs the next.
     */
    private void packInChunks(final SendOperation send)
    {
        send.packPending = false;
        final long packedAddress = send.staged.address();
        final long progressAddress = packedAddress - SharedArena.PROGRESS_BYTES;
        try
        {
            for (long offset = 0; offset < send.packedBytes; offset += PACK_CHUNK_BYTES)
            {
                final long lengthBytes = Math.min(PACK_CHUNK_BYTES, send.packedBytes - offset);
                send.compiled.pack(send.buffer.baseAddress(), send.count, offset, lengthBytes, packedAddress + offset);
                UnsafeApi.putLongRelease(null, progressAddress, offset + lengthBytes);
            }
        }
        catch (final RuntimeException ex)
        {
            UnsafeApi.putLongRelease(null, progressAddress, ArenaChunks.FAILED);
            completions.fail(send.request, ex);
        }
    }

    /**
     * The stage pipeline failed to pack a chunk of a send: the send fails, and its receiver is told, at once when it
     * cleared the send already, else when its CTS comes.
     */
    void chunkedSendFailed(final SendOperation send, final Throwable failure)
    {
        send.chunked.stopped();
        if (send.request.isDone())
        {
            return;
        }
        completions.fail(send.request, failure);
        final Peer peer = liveness.peer(send.destination);
        peer.streaming.remove(send);
        if (send.receiverTransferId != 0)
        {
            transfers.sends.remove(send.transferId);
            control(peer, stagingError(send.receiverTransferId, failure));
        }
        else
        {
            send.abandoned = true;
        }
    }

    /**
     * @return an ERROR that fails a receive of the peer whose matching send could not be staged.
     */
    ControlMessage stagingError(final long receiverTransferId, final Throwable failure)
    {
        return new ControlMessage(MessageType.ERROR, receiverTransferId, 0, 0, ErrorFlyweight.FLAG_RECEIVE,
            ErrorFlyweight.CODE_STAGING, "rank " + rank + " could not stage the send: " + failure.getMessage());
    }

    /**
     * One duty cycle's output to a peer: held control messages (to a gone peer too: one that said BYE waits for its
     * BYE_ACK, one reported dead may still be alive and wait for its HELLO), queued sends, DATA of streaming
     * transfers, and a CREDIT message when enough credit is owed and no other message carries it.
     *
     * @return work done.
     */
    int service(final Peer peer)
    {
        int workCount = 0;
        if (peer.hasOutboundWork())
        {
            workCount += flushControl(peer) + emitPending(peer) + streamData(peer);
        }
        if (peer.owedCreditBytes >= settings.creditFlushBytes() && peer.control.isEmpty() && !peer.isGone() &&
            sender.sendHeaderOnly(peer, MessageType.CREDIT) == WireSender.SENT)
        {
            workCount++;
        }
        return workCount;
    }

    /**
     * Sends a control message now, or after those held back before it.
     */
    void control(final Peer peer, final ControlMessage message)
    {
        if (!(peer.control.isEmpty() && sender.sendControl(peer, message) != WireSender.BACK_PRESSURED))
        {
            peer.control.addLast(message);
        }
    }

    void sendCts(final Peer peer, final long senderTransferId, final long receiverTransferId, final long packedBytes)
    {
        sendCts(peer, 0, senderTransferId, receiverTransferId, packedBytes);
    }

    void sendCts(
        final Peer peer, final int flags, final long senderTransferId, final long receiverTransferId,
        final long windowBytes)
    {
        if (!(peer.control.isEmpty() && sender.sendCts(peer, flags, senderTransferId, receiverTransferId,
            windowBytes) != WireSender.BACK_PRESSURED))
        {
            peer.control.addLast(new ControlMessage(
                MessageType.CTS, senderTransferId, receiverTransferId, windowBytes, flags, 0, null));
        }
    }

    /**
     * Tells the sender of a chunk taken out of its arena that its slot may take the next one.
     */
    void sendChunkDone(final Peer peer, final long senderTransferId, final int chunk)
    {
        if (!(peer.control.isEmpty() && sender.sendChunk(peer, MessageType.CHUNK_DONE, senderTransferId, chunk, 0, 0) !=
            WireSender.BACK_PRESSURED))
        {
            peer.control.addLast(new ControlMessage(MessageType.CHUNK_DONE, senderTransferId, chunk, 0, 0, 0, null));
        }
    }

    void sendAck(final Peer peer, final long senderTransferId)
    {
        if (!(peer.control.isEmpty() && sender.sendAck(peer, senderTransferId) != WireSender.BACK_PRESSURED))
        {
            peer.control.addLast(new ControlMessage(MessageType.ACK, senderTransferId, 0, 0, 0, 0, null));
        }
    }

    /**
     * Sends a HELLO to every other peer: this rank hears all of them and reaches all of them. One reported dead
     * gets it too, where its inbox is still connected: a report is no reason to keep a live rank from starting.
     *
     * @param pid         this rank's process id.
     * @param startTimeMs when its process started, in milliseconds since the epoch, 0 when unknown.
     */
    void sayHello(final long pid, final long startTimeMs)
    {
        for (final Peer peer : liveness.peers())
        {
            if (peer.rank != rank)
            {
                control(peer, new ControlMessage(MessageType.HELLO, pid, startTimeMs, 0, 0, 0, null));
            }
        }
    }

    /**
     * Sends a BYE to every other peer still there, after everything sent to it before; back-pressure holds a BYE
     * back like any control message, for the duty cycles that follow. Runs once every request in flight has failed.
     */
    void sayGoodbye()
    {
        for (final Peer peer : liveness.peers())
        {
            if (peer.rank != rank && !peer.isGone())
            {
                peer.byeSent = true;
                control(peer, new ControlMessage(MessageType.BYE, 0, 0, 0, 0, 0, null));
            }
        }
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
            final int result = emit(peer, send);
            if (result == WireSender.BACK_PRESSURED)
            {
                break;
            }
            peer.pending.pollFirst();
            if (result == WireSender.GONE)
            {
                liveness.failAll(peer.pending, peer);
                liveness.peerGone(peer, "its inbox publication closed");
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
        final int type = send.deviceIpc ? MessageType.RTS :
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

    private static TracedPath pathOf(final Peer peer, final SendOperation send, final int type)
    {
        if (send.deviceIpc)
        {
            return TracedPath.CUDA_IPC;
        }
        if (type == MessageType.EAGER)
        {
            return TracedPath.EAGER;
        }
        return peer.readable ? TracedPath.SHARED_MEMORY : TracedPath.RENDEZVOUS;
    }

    private void sent(final Peer peer, final SendOperation send, final int type)
    {
        if (type == MessageType.EAGER && !send.synchronous)
        {
            TransferTrace.took(send, TracedPath.EAGER);
        }
        else if (send.chunked == null)
        {
            TransferTrace.begun(device.tracer(), send, pathOf(peer, send, type), 1);
        }
        if (type == MessageType.RTS)
        {
            peer.rendezvousSends++;
        }
        if (type == MessageType.EAGER)
        {
            peer.eagerSends++;
            peer.eagerCreditBytes -= WireSender.eagerFrameLength(send);
            if (!send.synchronous)
            {
                send.releaseStaged();
                completions.completeSend(send);
                return;
            }
        }
        transfers.sends.put(send.transferId, send);
    }

    /**
     * Streams the peer's sends in the order their CTS came; a send that cannot go on (its next chunk not packed yet,
     * its window shut) goes to the back, so that it never holds up the sends behind it: they may hold the slots that
     * it waits for. Ends after a pass over the queue in which no send could go on, or when the budget is spent.
     */
    private int streamData(final Peer peer)
    {
        int workCount = 0;
        int waiting = 0;
        long budgetBytes = settings.dataBudgetBytes();
        SendOperation send;
        while (budgetBytes > 0 && waiting < peer.streaming.size() && (send = peer.streaming.peekFirst()) != null)
        {
            final int result;
            if (send.chunked != null && send.chunked.arenaWire)
            {
                final ChunkedSend chunked = send.chunked;
                final int chunk = chunked.chunksAnnounced;
                if (!chunked.isReady(chunk) || chunk - chunked.chunksSent >= TransferPipeline.ARENA_RING)
                {
                    peer.streaming.addLast(peer.streaming.pollFirst());
                    waiting++;
                    continue;
                }
                result = sender.sendChunk(peer, MessageType.CHUNK, send.receiverTransferId, chunk,
                    (int)chunked.plan.chunkBytes(), hostBuffers.sharedOffset(chunked.address(chunk)));
                if (result == WireSender.SENT)
                {
                    chunked.announced(chunk);
                    if (chunked.chunksAnnounced == chunked.plan.chunks())
                    {
                        peer.streaming.pollFirst();
                    }
                }
            }
            else if (send.sentBytes < send.packedBytes)
            {
                final int lengthBytes = nextFragmentBytes(peer, send);
                if (lengthBytes == 0)
                {
                    peer.streaming.addLast(peer.streaming.pollFirst());
                    waiting++;
                    continue;
                }
                result = sendDataSafely(peer, send, lengthBytes);
                if (result == WireSender.SENT)
                {
                    sent(send, lengthBytes);
                    budgetBytes -= lengthBytes;
                }
            }
            else
            {
                result = sender.sendFin(peer, send);
                if (result == WireSender.SENT)
                {
                    peer.streaming.pollFirst();
                    transfers.sends.remove(send.transferId);
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
                liveness.peerGone(peer, "its inbox publication closed");
                break;
            }
            waiting = 0;
            workCount++;
        }
        return workCount;
    }

    /**
     * @return bytes of the next DATA fragment of a streaming send: within one Aeron frame, the receiver's window and,
     * for a chunked send, its chunk, which must be packed already; 0 while it must wait.
     */
    private static int nextFragmentBytes(final Peer peer, final SendOperation send)
    {
        final long limitBytes = Math.min(send.packedBytes, send.windowBytes);
        long lengthBytes = Math.min(peer.dataFragmentBytes, limitBytes - send.sentBytes);
        final ChunkedSend chunked = send.chunked;
        if (chunked != null && lengthBytes > 0)
        {
            final int chunk = chunked.plan.chunkOf(send.sentBytes);
            if (!chunked.isReady(chunk))
            {
                return 0;
            }
            final long chunkEnd = chunked.plan.offset(chunk) + chunked.plan.length(chunk);
            lengthBytes = Math.min(lengthBytes, chunkEnd - send.sentBytes);
        }
        return (int)Math.max(0, lengthBytes);
    }

    private static void sent(final SendOperation send, final int lengthBytes)
    {
        final ChunkedSend chunked = send.chunked;
        if (chunked != null)
        {
            final int first = chunked.plan.chunkOf(send.sentBytes);
            if (send.sentBytes == chunked.plan.offset(first))
            {
                chunked.sending(first);
            }
        }
        send.sentBytes += lengthBytes;
        if (chunked != null)
        {
            final int chunk = chunked.plan.chunkOf(send.sentBytes - 1);
            if (send.sentBytes == chunked.plan.offset(chunk) + chunked.plan.length(chunk))
            {
                chunked.sent(chunk);
            }
        }
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
            transfers.sends.remove(send.transferId);
            send.releaseStaged();
            completions.fail(send.request, ex);
            control(peer, new ControlMessage(MessageType.ERROR, send.receiverTransferId, 0, 0,
                ErrorFlyweight.FLAG_RECEIVE, ErrorFlyweight.CODE_PROTOCOL, "rank " + rank + " could not read the " +
                "send buffer: " + ex.getMessage()));
            return WireSender.SENT;
        }
    }
}
