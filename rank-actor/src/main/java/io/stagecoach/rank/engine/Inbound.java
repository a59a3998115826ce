package io.stagecoach.rank.engine;

import io.aeron.logbuffer.FragmentHandler;
import io.aeron.logbuffer.Header;
import io.stagecoach.pipeline.transport.aeron.AeronTransport;
import io.stagecoach.protocol.ErrorClass;
import io.stagecoach.protocol.wire.AckFlyweight;
import io.stagecoach.protocol.wire.ChunkFlyweight;
import io.stagecoach.protocol.wire.ClearToSendFlyweight;
import io.stagecoach.protocol.wire.DataFlyweight;
import io.stagecoach.protocol.wire.EnvelopeFlyweight;
import io.stagecoach.protocol.wire.ErrorFlyweight;
import io.stagecoach.protocol.wire.FinFlyweight;
import io.stagecoach.protocol.wire.HelloFlyweight;
import io.stagecoach.protocol.wire.IpcReleaseFlyweight;
import io.stagecoach.protocol.wire.MessageHeaderFlyweight;
import io.stagecoach.protocol.wire.MessageType;
import io.stagecoach.protocol.wire.ShortEagerFlyweight;
import io.stagecoach.rank.StagecoachException;
import org.agrona.DirectBuffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import static io.stagecoach.rank.engine.EngineErrors.remoteError;

/**
 * The inbound side of the engine: validates each message of the inbox against the image it came from, takes the
 * eager credit it returns, and dispatches it by type. An EAGER or RTS envelope matches the earliest posted receive,
 * in sequence per source, or is held as an unexpected message (an eager payload copied, a large message costing its
 * envelope only); CTS, DATA, FIN, ERROR and ACK advance the transfers in flight.
 */
final class Inbound implements FragmentHandler
{
    private static final Logger LOG = LoggerFactory.getLogger(ProgressEngine.class);

    private final int rank;
    private final EngineSettings settings;
    private final MatchQueues queues;
    private final Transfers transfers;
    private final Completions completions;
    private final PeerLiveness liveness;
    private final Delivery delivery;
    private final MessageHeaderFlyweight header = new MessageHeaderFlyweight();
    private final EnvelopeFlyweight envelope = new EnvelopeFlyweight();
    private final ClearToSendFlyweight cts = new ClearToSendFlyweight();
    private final DataFlyweight data = new DataFlyweight();
    private final FinFlyweight fin = new FinFlyweight();
    private final ErrorFlyweight error = new ErrorFlyweight();
    private final AckFlyweight ack = new AckFlyweight();
    private final ShortEagerFlyweight shortEager = new ShortEagerFlyweight();
    private final HelloFlyweight hello = new HelloFlyweight();
    private final ChunkFlyweight chunk = new ChunkFlyweight();
    private final IpcReleaseFlyweight release = new IpcReleaseFlyweight();
    private final Outbound outbound;
    private AeronTransport transport;

    Inbound(
        final int rank,
        final EngineSettings settings,
        final MatchQueues queues,
        final Transfers transfers,
        final Completions completions,
        final PeerLiveness liveness,
        final Delivery delivery,
        final Outbound outbound)
    {
        this.rank = rank;
        this.settings = settings;
        this.queues = queues;
        this.transfers = transfers;
        this.completions = completions;
        this.liveness = liveness;
        this.delivery = delivery;
        this.outbound = outbound;
    }

    /**
     * @param transport whose inbox this handler is given to poll.
     */
    void attach(final AeronTransport transport)
    {
        this.transport = transport;
    }

    public void onFragment(final DirectBuffer buffer, final int offset, final int length, final Header aeronHeader)
    {
        final int sessionRank = transport.rankOfSession(aeronHeader.sessionId());
        if (sessionRank < 0)
        {
            return;
        }
        final Peer peer = liveness.peer(sessionRank);
        if (peer.isGone())
        {
            onLeftPeer(peer, buffer, offset, length);
            return;
        }
        final String problem = MessageHeaderFlyweight.validate(buffer, offset, length);
        if (problem != null)
        {
            liveness.protocolError(peer, problem);
            return;
        }
        header.wrap(buffer, offset, length);
        if (header.type() == MessageType.EAGER_SHORT)
        {
            onShortEager(peer, buffer, offset, length);
            return;
        }
        if (header.sourceRank() != sessionRank || header.destinationRank() != rank)
        {
            liveness.protocolError(peer, MessageType.name(header.type()) + " names source " +
                header.sourceRank() + " and destination " + header.destinationRank() + " but came from rank " +
                sessionRank + " to rank " + rank);
            return;
        }
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
                onBye(peer);
                break;
            case MessageType.BYE_ACK:
                peer.byeAcknowledged = true;
                break;
            case MessageType.CHUNK:
                onChunk(peer, chunk.wrap(buffer, offset, length));
                break;
            case MessageType.CHUNK_DONE:
                onChunkDone(peer, chunk.wrap(buffer, offset, length));
                break;
            case MessageType.HELLO:
                hello.wrap(buffer, offset, length);
                liveness.helloArrived(peer, hello.pid(), hello.startTimeMs());
                break;
            case MessageType.IPC_RELEASE:
                release.wrap(buffer, offset, length);
                peer.ipcReleases++;
                delivery.ipcReleased(peer, release.allocationAddress(), release.exportNumber());
                break;
            default:
                break;
        }
    }

    /**
     * A peer that said BYE sends nothing but the BYE_ACK of this rank's own BYE; anything else from a gone peer is
     * dropped.
     */
    private void onLeftPeer(final Peer peer, final DirectBuffer buffer, final int offset, final int length)
    {
        if (peer.closed && MessageHeaderFlyweight.validate(buffer, offset, length) == null &&
            header.wrap(buffer, offset, length).type() == MessageType.BYE_ACK)
        {
            peer.byeAcknowledged = true;
        }
    }

    /**
     * The peer leaves: what waits on it fails, and a BYE_ACK tells it that everything it sent before has been read.
     */
    private void onBye(final Peer peer)
    {
        liveness.peerClosed(peer);
        outbound.control(peer, new ControlMessage(MessageType.BYE_ACK, 0, 0, 0, 0, 0, null));
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
        delivery.deliverEager(receive, peer, envelope.tag(), (envelope.flags() & EnvelopeFlyweight.FLAG_SYNC) != 0,
            envelope.transferId(), envelope.packedBytes(), envelope.signature(0), envelope.signature(1),
            envelope.signature(2), delivery.payloadAddress(buffer, offset + EnvelopeFlyweight.HEADER_LENGTH,
            (int)envelope.packedBytes()));
    }

    /**
     * An EAGER_SHORT message: its source is the session's rank, its sequence the one due with the low 32 bits it
     * carries, its signature's size its payload's length; it returns no credit.
     */
    private void onShortEager(final Peer peer, final DirectBuffer buffer, final int offset, final int length)
    {
        shortEager.wrap(buffer, offset, length);
        if (!inSequence(peer, shortEager.sequence(peer.expectedSequence)))
        {
            return;
        }
        final int packedBytes = shortEager.payloadLength();
        final ReceiveOperation receive = queues.takePosted(peer.rank, shortEager.tag(), shortEager.contextId());
        if (receive == null)
        {
            final byte[] payload = new byte[packedBytes];
            buffer.getBytes(offset + ShortEagerFlyweight.HEADER_LENGTH, payload);
            queues.addUnexpected(new UnexpectedMessage(MessageType.EAGER, peer.rank, shortEager.tag(),
                shortEager.contextId(), false, 0, packedBytes, shortEager.signatureHash(),
                shortEager.signatureLength(), packedBytes, payload, length));
            return;
        }
        peer.owedCreditBytes += length;
        delivery.deliverEager(receive, peer, shortEager.tag(), false, 0, packedBytes, shortEager.signatureHash(),
            shortEager.signatureLength(), packedBytes,
            delivery.payloadAddress(buffer, offset + ShortEagerFlyweight.HEADER_LENGTH, packedBytes));
    }

    private void onRts(final Peer peer, final DirectBuffer buffer, final int offset, final int length)
    {
        envelope.wrap(buffer, offset, length);
        if (!inSequence(peer, envelope.sequence()))
        {
            return;
        }
        final ReceiveOperation receive = queues.takePosted(peer.rank, envelope.tag(), envelope.contextId());
        // only a peer of this node may name its memory to read (its process, arena or device buffer)
        final boolean readable = peer.local && (envelope.flags() & EnvelopeFlyweight.FLAG_READABLE) != 0;
        final long sourcePid = readable ? envelope.sourcePid() : 0;
        final long sourceAddress = readable ? envelope.sourceAddress() : 0;
        final int sourceFlags = readable ? envelope.flags() &
            (EnvelopeFlyweight.FLAG_SHARED | EnvelopeFlyweight.FLAG_DIRECT | EnvelopeFlyweight.FLAG_ARENA_CHUNKS |
            EnvelopeFlyweight.FLAG_DEVICE_IPC) : 0;
        if (receive == null)
        {
            final UnexpectedMessage message = unexpected(MessageType.RTS, peer.rank, null, 0);
            message.sourcePid = sourcePid;
            message.sourceAddress = sourceAddress;
            message.sourceFlags = sourceFlags;
            queues.addUnexpected(message);
            return;
        }
        delivery.startRendezvous(receive, peer, envelope.tag(), envelope.transferId(), envelope.packedBytes(),
            envelope.signature(0), envelope.signature(1), envelope.signature(2), sourcePid, sourceAddress, sourceFlags);
    }

    private UnexpectedMessage unexpected(final int type, final int source, final byte[] payload, final int credit)
    {
        return new UnexpectedMessage(type, source, envelope.tag(), envelope.contextId(),
            (envelope.flags() & EnvelopeFlyweight.FLAG_SYNC) != 0, envelope.transferId(), envelope.packedBytes(),
            envelope.signature(0), envelope.signature(1), envelope.signature(2), payload, credit);
    }

    private void onCts(final Peer peer, final ClearToSendFlyweight message)
    {
        final SendOperation send = transfers.sends.get(message.senderTransferId());
        if (send == null || send.destination != peer.rank ||
            send.receiverTransferId != 0 && send.receiverTransferId != message.receiverTransferId())
        {
            LOG.debug("rank {} ignores a CTS from rank {} for transfer {}", rank, peer.rank,
                message.senderTransferId());
            return;
        }
        if (send.abandoned)
        {
            transfers.sends.remove(send.transferId);
            outbound.control(peer, outbound.stagingError(message.receiverTransferId(), send.request.status().error()));
            return;
        }
        if (send.deviceIpc && send.chunked == null &&
            !outbound.stageAfterCts(peer, send, message.receiverTransferId()))
        {
            return;
        }
        send.windowBytes = Math.max(send.windowBytes, message.windowBytes());
        if (send.receiverTransferId == 0)
        {
            if ((message.flags() & ClearToSendFlyweight.FLAG_ARENA) != 0 && send.chunked != null &&
                send.chunked.inArena)
            {
                send.chunked.arenaWire = true;
            }
            send.receiverTransferId = message.receiverTransferId();
            if (send.chunked != null)
            {
                send.chunked.matched();
            }
            peer.streaming.addLast(send);
        }
    }

    /**
     * A chunk of a device receive lies packed in a slot of the sender's arena: it goes to the pipeline, which unpacks
     * it in place.
     */
    private void onChunk(final Peer peer, final ChunkFlyweight message)
    {
        final ReceiveOperation receive = transfers.receives.get(message.transferId());
        if (receive == null || receive.matchedSource != peer.rank || receive.arenaBase == 0)
        {
            return;
        }
        peer.arenaChunks++;
        boolean taken;
        try
        {
            taken = delivery.chunkInArena(receive, message.chunk(), message.chunkBytes(), message.arenaOffset());
        }
        catch (final RuntimeException ex)
        {
            taken = false;
        }
        if (!taken)
        {
            transfers.receives.remove(receive.transferId);
            receive.releaseStaging();
            completions.fail(receive.request, new StagecoachException(ErrorClass.INTERN, "rank " + peer.rank +
                " named chunk " + message.chunk() + " of " + message.chunkBytes() + " bytes at arena offset " +
                message.arenaOffset() + ", outside its message of " + receive.packedBytes + " bytes or its slot " +
                "region [" + receive.regionOffset + ", " + (receive.regionOffset + receive.regionLength) + "): " +
                receive.request));
        }
    }

    /**
     * The receiver took a chunk out of this rank's arena: the slot may take the next; the send completes with its
     * last chunk.
     */
    private void onChunkDone(final Peer peer, final ChunkFlyweight message)
    {
        final SendOperation send = transfers.sends.get(message.transferId());
        if (send == null || send.destination != peer.rank || send.chunked == null || !send.chunked.arenaWire ||
            message.chunk() < send.chunked.chunksSent || message.chunk() >= send.chunked.chunksAnnounced)
        {
            return;
        }
        send.chunked.sent(message.chunk());
        if (send.chunked.chunksSent == send.chunked.plan.chunks())
        {
            transfers.sends.remove(send.transferId);
            completions.completeSend(send);
        }
    }

    private void onData(final Peer peer, final DirectBuffer buffer, final int offset, final int length)
    {
        data.wrap(buffer, offset, length);
        final ReceiveOperation receive = transfers.receives.get(data.receiverTransferId());
        if (receive == null || receive.matchedSource != peer.rank)
        {
            return;
        }
        final int lengthBytes = data.payloadLength();
        if (data.packedOffset() != receive.receivedBytes || receive.receivedBytes + lengthBytes > receive.packedBytes)
        {
            transfers.receives.remove(receive.transferId);
            receive.releaseStaging();
            completions.fail(receive.request, new StagecoachException(ErrorClass.INTERN,
                "rank " + peer.rank + " sent DATA at packed " +
                "offset " + data.packedOffset() + " of " + lengthBytes + " bytes, but " + receive.receivedBytes +
                " of " + receive.packedBytes + " had arrived: " + receive.request));
            return;
        }
        try
        {
            receive.write(buffer.addressOffset() + offset + DataFlyweight.HEADER_LENGTH, data.packedOffset(),
                lengthBytes);
        }
        catch (final RuntimeException ex)
        {
            transfers.receives.remove(receive.transferId);
            receive.releaseStaging();
            completions.fail(receive.request, ex);
            return;
        }
        receive.receivedBytes += lengthBytes;
    }

    private void onFin(final Peer peer, final FinFlyweight message)
    {
        final ReceiveOperation receive = transfers.receives.get(message.receiverTransferId());
        if (receive == null || receive.matchedSource != peer.rank)
        {
            return;
        }
        transfers.receives.remove(receive.transferId);
        if (receive.receivedBytes != receive.packedBytes || message.totalBytes() != receive.packedBytes)
        {
            receive.releaseStaging();
            completions.fail(receive.request, new StagecoachException(ErrorClass.INTERN,
                "rank " + peer.rank + " finished a transfer " +
                "of " + message.totalBytes() + " bytes after " + receive.receivedBytes + " of " +
                receive.packedBytes + " arrived: " + receive.request));
            return;
        }
        delivery.finishReceive(receive);
    }

    private void onError(final Peer peer, final ErrorFlyweight message)
    {
        final String text = message.message();
        final int code = message.errorCode();
        if ((message.flags() & ErrorFlyweight.FLAG_SEND) != 0)
        {
            final SendOperation send = transfers.sends.remove(message.transferId());
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
            final ReceiveOperation receive = transfers.receives.remove(message.transferId());
            if (receive != null && receive.matchedSource == peer.rank)
            {
                receive.releaseStaging();
                completions.fail(receive.request, remoteError(peer.rank, code, receive.request.toString(), text));
            }
        }
    }

    private void onAck(final Peer peer, final AckFlyweight message)
    {
        final SendOperation send = transfers.sends.get(message.senderTransferId());
        if (send != null && send.destination == peer.rank && (send.synchronous || send.readableOffered) &&
            send.receiverTransferId == 0)
        {
            transfers.sends.remove(send.transferId);
            send.releaseStaged();
            completions.completeSend(send);
        }
    }

    private boolean inSequence(final Peer peer, final long sequence)
    {
        if (sequence != peer.expectedSequence)
        {
            liveness.protocolError(peer, "message sequence " + sequence + " arrived where " +
                peer.expectedSequence + " was due (a message was lost or reordered)");
            return false;
        }
        peer.expectedSequence++;
        return true;
    }
}
