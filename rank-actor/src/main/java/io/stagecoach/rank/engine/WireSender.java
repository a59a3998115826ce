package io.stagecoach.rank.engine;

import java.nio.ByteBuffer;

import io.aeron.Publication;
import io.aeron.logbuffer.BufferClaim;
import io.stagecoach.protocol.host.CrossMemory;
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
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Encodes outgoing messages straight into a peer's publication: a message that fits one Aeron frame is claimed
 * with {@code tryClaim} and its payload packed from the user buffer into the claimed term space (no intermediate
 * copy); a larger EAGER message is packed into a scratch buffer and offered, to be fragmented by Aeron. An RTS to a
 * same-node peer says where the packed message lies, when it lies contiguous, so that the peer can read it. Every
 * message carries the eager credit owed to its destination. Back-pressure is a return value, never a wait.
 */
public final class WireSender
{
    /** The message went out. */
    static final int SENT = 1;
    /** The publication is back-pressured or not connected for now: try again on a later duty cycle. */
    static final int BACK_PRESSURED = 0;
    /** The publication is closed: the peer cannot be reached any more. */
    static final int GONE = -1;

    private final int rank;
    private final BufferClaim claim = new BufferClaim();
    private final UnsafeBuffer scratch;
    private final MessageHeaderFlyweight header = new MessageHeaderFlyweight();
    private final EnvelopeFlyweight envelope = new EnvelopeFlyweight();
    private final ClearToSendFlyweight cts = new ClearToSendFlyweight();
    private final DataFlyweight data = new DataFlyweight();
    private final FinFlyweight fin = new FinFlyweight();
    private final ErrorFlyweight error = new ErrorFlyweight();
    private final AckFlyweight ack = new AckFlyweight();
    private final ShortEagerFlyweight shortEager = new ShortEagerFlyweight();
    private final HelloFlyweight hello = new HelloFlyweight();
    private final ChunkFlyweight chunkMessage = new ChunkFlyweight();
    private final IpcReleaseFlyweight release = new IpcReleaseFlyweight();

    WireSender(final int rank, final int eagerThresholdBytes)
    {
        this.rank = rank;
        this.scratch = new UnsafeBuffer(ByteBuffer.allocateDirect(
            Math.max(EnvelopeFlyweight.HEADER_LENGTH + eagerThresholdBytes, ErrorFlyweight.HEADER_LENGTH +
            ErrorFlyweight.MAX_MESSAGE_BYTES)));
    }

    public static int eagerLength(final long packedBytes)
    {
        return EnvelopeFlyweight.HEADER_LENGTH + (int)packedBytes;
    }

    /**
     * @return whether an eager send goes as EAGER_SHORT: a standard-mode send of at most 8 bytes, one cache line with
     * its frame.
     */
    static boolean isShortEager(final SendOperation send)
    {
        return !send.synchronous && ShortEagerFlyweight.fits(send.packedBytes, send.signature.length);
    }

    /**
     * @return bytes an eager send takes on the wire, and so of the destination's eager credit.
     */
    static int eagerFrameLength(final SendOperation send)
    {
        return isShortEager(send) ? ShortEagerFlyweight.HEADER_LENGTH + (int)send.packedBytes :
            eagerLength(send.packedBytes);
    }

    /**
     * The protocol of a send: eager when its packed bytes are within the threshold and its whole EAGER frame
     * fits the eager credit left at the destination, rendezvous otherwise.
     *
     * @param packedBytes         of the message.
     * @param eagerThresholdBytes largest message sent eagerly.
     * @param eagerCreditBytes    credit left at the destination.
     * @return {@link MessageType#EAGER} or {@link MessageType#RTS}.
     */
    static int protocolFor(final long packedBytes, final int eagerThresholdBytes, final long eagerCreditBytes)
    {
        return packedBytes <= eagerThresholdBytes && eagerCreditBytes >= eagerLength(packedBytes) ?
            MessageType.EAGER : MessageType.RTS;
    }

    int sendEnvelope(final Peer peer, final SendOperation send, final int type, final long sequence)
    {
        if (type == MessageType.EAGER && isShortEager(send))
        {
            return sendShortEager(peer, send, sequence);
        }
        final boolean arena = type == MessageType.RTS && peer.readable && send.chunked != null && send.chunked.inArena;
        final boolean readable = type == MessageType.RTS && peer.readable && (send.readableAddress() != 0 || arena);
        final int length = type == MessageType.EAGER ? eagerLength(send.packedBytes) :
            readable ? EnvelopeFlyweight.READABLE_LENGTH : EnvelopeFlyweight.HEADER_LENGTH;
        final boolean claimed = length <= peer.maxPayloadBytes;
        final long reserved = reserve(peer, claimed, length);
        if (reserved < 0)
        {
            return outcome(reserved);
        }
        final MutableDirectBuffer buffer = claimed ? claim.buffer() : scratch;
        final int offset = claimed ? claim.offset() : 0;
        try
        {
            writeEnvelope(peer, send, type, readable, arena, sequence, buffer, offset, length);
        }
        catch (final RuntimeException ex)
        {
            if (claimed)
            {
                claim.abort();
            }
            throw ex;
        }
        return finish(peer, claimed, length);
    }

    /**
     * An EAGER_SHORT message: no credit rides on it, so what this rank owes the peer waits for the next message that
     * carries it, or a CREDIT.
     */
    private int sendShortEager(final Peer peer, final SendOperation send, final long sequence)
    {
        final int length = ShortEagerFlyweight.HEADER_LENGTH + (int)send.packedBytes;
        final long result = peer.publication.tryClaim(length, claim);
        if (result < 0)
        {
            return outcome(result);
        }
        try
        {
            shortEager.wrap(claim.buffer(), claim.offset(), length)
                .write(send.contextId, send.tag, sequence, send.signature.hash, send.signature.length);
            send.packInto(0, (int)send.packedBytes,
                claim.buffer().addressOffset() + claim.offset() + ShortEagerFlyweight.HEADER_LENGTH);
        }
        catch (final RuntimeException ex)
        {
            claim.abort();
            throw ex;
        }
        claim.commit();
        return SENT;
    }

    int sendData(final Peer peer, final SendOperation send, final int lengthBytes)
    {
        final int length = DataFlyweight.HEADER_LENGTH + lengthBytes;
        final long result = peer.publication.tryClaim(length, claim);
        if (result < 0)
        {
            return outcome(result);
        }
        try
        {
            data.wrap(claim.buffer(), claim.offset(), length);
            start(data, MessageType.DATA, 0, peer);
            data.receiverTransferId(send.receiverTransferId).packedOffset(send.sentBytes).payloadLength(lengthBytes);
            send.packInto(send.sentBytes, lengthBytes,
                claim.buffer().addressOffset() + claim.offset() + DataFlyweight.HEADER_LENGTH);
        }
        catch (final RuntimeException ex)
        {
            claim.abort();
            throw ex;
        }
        return finish(peer, true, length);
    }

    int sendFin(final Peer peer, final SendOperation send)
    {
        final long result = peer.publication.tryClaim(FinFlyweight.LENGTH, claim);
        if (result < 0)
        {
            return outcome(result);
        }
        fin.wrap(claim.buffer(), claim.offset(), FinFlyweight.LENGTH);
        start(fin, MessageType.FIN, 0, peer);
        fin.receiverTransferId(send.receiverTransferId).totalBytes(send.sentBytes);
        return finish(peer, true, FinFlyweight.LENGTH);
    }

    int sendControl(final Peer peer, final ControlMessage message)
    {
        switch (message.type)
        {
            case MessageType.CTS:
                return sendCts(peer, message.flags, message.first, message.second, message.third);
            case MessageType.CHUNK:
            case MessageType.CHUNK_DONE:
                return sendChunk(peer, message.type, message.first, (int)message.second, 0, message.third);
            case MessageType.ACK:
                return sendAck(peer, message.first);
            case MessageType.ERROR:
                return sendError(peer, message.flags, message.first, message.code, message.text);
            case MessageType.HELLO:
                return sendHello(peer, message.first, message.second);
            case MessageType.IPC_RELEASE:
                return sendIpcRelease(peer, message.first, message.second);
            default:
                return sendHeaderOnly(peer, message.type);
        }
    }

    int sendCts(
        final Peer peer, final int flags, final long senderTransferId, final long receiverTransferId,
        final long windowBytes)
    {
        final long result = peer.publication.tryClaim(ClearToSendFlyweight.LENGTH, claim);
        if (result < 0)
        {
            return outcome(result);
        }
        cts.wrap(claim.buffer(), claim.offset(), ClearToSendFlyweight.LENGTH);
        start(cts, MessageType.CTS, flags, peer);
        cts.senderTransferId(senderTransferId).receiverTransferId(receiverTransferId).windowBytes(windowBytes);
        return finish(peer, true, ClearToSendFlyweight.LENGTH);
    }

    /**
     * A CHUNK (to the receiver, naming where the chunk lies in this rank's arena) or a CHUNK_DONE (to the sender).
     */
    int sendChunk(
        final Peer peer, final int type, final long transferId, final int chunk, final int chunkBytes,
        final long arenaOffset)
    {
        final long result = peer.publication.tryClaim(ChunkFlyweight.LENGTH, claim);
        if (result < 0)
        {
            return outcome(result);
        }
        chunkMessage.wrap(claim.buffer(), claim.offset(), ChunkFlyweight.LENGTH);
        start(chunkMessage, type, 0, peer);
        chunkMessage.transferId(transferId).chunk(chunk).chunkBytes(chunkBytes).arenaOffset(arenaOffset);
        return finish(peer, true, ChunkFlyweight.LENGTH);
    }

    int sendAck(final Peer peer, final long senderTransferId)
    {
        final long result = peer.publication.tryClaim(AckFlyweight.LENGTH, claim);
        if (result < 0)
        {
            return outcome(result);
        }
        ack.wrap(claim.buffer(), claim.offset(), AckFlyweight.LENGTH);
        start(ack, MessageType.ACK, 0, peer);
        ack.senderTransferId(senderTransferId);
        return finish(peer, true, AckFlyweight.LENGTH);
    }

    int sendHello(final Peer peer, final long pid, final long startTimeMs)
    {
        final long result = peer.publication.tryClaim(HelloFlyweight.LENGTH, claim);
        if (result < 0)
        {
            return outcome(result);
        }
        hello.wrap(claim.buffer(), claim.offset(), HelloFlyweight.LENGTH);
        start(hello, MessageType.HELLO, 0, peer);
        hello.pid(pid).startTimeMs(startTimeMs);
        return finish(peer, true, HelloFlyweight.LENGTH);
    }

    /**
     * An IPC_RELEASE: this rank freed a device allocation it offered the peer over IPC.
     */
    int sendIpcRelease(final Peer peer, final long allocationAddress, final long exportNumber)
    {
        final long result = peer.publication.tryClaim(IpcReleaseFlyweight.LENGTH, claim);
        if (result < 0)
        {
            return outcome(result);
        }
        release.wrap(claim.buffer(), claim.offset(), IpcReleaseFlyweight.LENGTH);
        start(release, MessageType.IPC_RELEASE, 0, peer);
        release.allocationAddress(allocationAddress).exportNumber(exportNumber);
        return finish(peer, true, IpcReleaseFlyweight.LENGTH);
    }

    int sendError(final Peer peer, final int flags, final long transferId, final int code, final String text)
    {
        final int length = ErrorFlyweight.encodedLength(text);
        final boolean claimed = length <= peer.maxPayloadBytes;
        final long reserved = reserve(peer, claimed, length);
        if (reserved < 0)
        {
            return outcome(reserved);
        }
        final MutableDirectBuffer buffer = claimed ? claim.buffer() : scratch;
        final int offset = claimed ? claim.offset() : 0;
        error.wrap(buffer, offset, length);
        start(error, MessageType.ERROR, flags, peer);
        error.transferId(transferId).errorCode(code).message(text);
        return finish(peer, claimed, length);
    }

    int sendHeaderOnly(final Peer peer, final int type)
    {
        final long result = peer.publication.tryClaim(MessageHeaderFlyweight.HEADER_LENGTH, claim);
        if (result < 0)
        {
            return outcome(result);
        }
        header.wrap(claim.buffer(), claim.offset(), MessageHeaderFlyweight.HEADER_LENGTH);
        start(header, type, 0, peer);
        return finish(peer, true, MessageHeaderFlyweight.HEADER_LENGTH);
    }

    private void writeEnvelope(
        final Peer peer,
        final SendOperation send,
        final int type,
        final boolean readable,
        final boolean arena,
        final long sequence,
        final MutableDirectBuffer buffer,
        final int offset,
        final int length)
    {
        envelope.wrap(buffer, offset, length);
        start(envelope, type, (send.synchronous ? EnvelopeFlyweight.FLAG_SYNC : 0) |
            (readable ? EnvelopeFlyweight.FLAG_READABLE : 0) |
            (readable && send.sharedOffset > 0 ? EnvelopeFlyweight.FLAG_SHARED : 0) |
            (readable && send.description != null && !send.deviceIpc ? EnvelopeFlyweight.FLAG_DIRECT : 0) |
            (readable && send.deviceIpc ? EnvelopeFlyweight.FLAG_DEVICE_IPC : 0) |
            (arena ? EnvelopeFlyweight.FLAG_ARENA_CHUNKS : 0), peer);
        envelope.contextId(send.contextId).tag(send.tag).sequence(sequence).transferId(send.transferId)
            .packedBytes(send.packedBytes)
            .signature(send.signature.hash, send.signature.length, send.signature.sizeBytes);
        if (type == MessageType.EAGER)
        {
            send.packInto(0, (int)send.packedBytes, buffer.addressOffset() + offset + EnvelopeFlyweight.HEADER_LENGTH);
        }
        else if (arena)
        {
            envelope.sourcePid(CrossMemory.pid()).sourceAddress(send.chunked.sharedRegion);
        }
        else if (readable)
        {
            envelope.sourcePid(CrossMemory.pid())
                .sourceAddress(send.sharedOffset > 0 ? send.sharedOffset : send.readableAddress());
            send.readableOffered = true;
        }
    }

    private void start(final MessageHeaderFlyweight message, final int type, final int flags, final Peer peer)
    {
        message.header(type, flags);
        message.sourceRank(rank);
        message.destinationRank(peer.rank);
        message.creditBytes(peer.owedCreditBytes);
    }

    /**
     * Room for a message: a claim in the peer's publication where it fits one frame, the scratch buffer otherwise
     * (offered whole by {@link #finish}).
     *
     * @return the claim's result, negative when back-pressured or gone; 0 for the scratch buffer.
     */
    private long reserve(final Peer peer, final boolean claimed, final int length)
    {
        return claimed ? peer.publication.tryClaim(length, claim) : 0;
    }

    private int finish(final Peer peer, final boolean claimed, final int length)
    {
        if (claimed)
        {
            claim.commit();
        }
        else
        {
            final long result = peer.publication.offer(scratch, 0, length);
            if (result < 0)
            {
                return outcome(result);
            }
        }
        peer.owedCreditBytes = 0;
        return SENT;
    }

    private static int outcome(final long result)
    {
        if (result == Publication.CLOSED || result == Publication.MAX_POSITION_EXCEEDED)
        {
            return GONE;
        }
        return BACK_PRESSURED;
    }
}
