package io.stagecoach.rank.engine;

import io.stagecoach.protocol.wire.MessageType;

/**
 * A matchable message that arrived before a receive matched it: an EAGER message with a copy of its payload, or an
 * RTS (its payload stays with the sender until the receive is posted; from a same-node sender, with where it lies). Linked into the unexpected-message queue in
 * arrival order.
 */
final class UnexpectedMessage
{
    final int type;
    final int source;
    final int tag;
    final int contextId;
    final boolean synchronous;
    final long senderTransferId;
    final long packedBytes;
    final long signatureHash;
    final long signatureLength;
    final long signatureSizeBytes;
    final byte[] payload;
    final int creditBytes;

    long sourcePid;
    long sourceAddress;
    /** The RTS's flags {@link io.stagecoach.protocol.wire.EnvelopeFlyweight#FLAG_SHARED} and {@code FLAG_DIRECT}. */
    int sourceFlags;
    UnexpectedMessage previous;
    UnexpectedMessage next;

    UnexpectedMessage(
        final int type,
        final int source,
        final int tag,
        final int contextId,
        final boolean synchronous,
        final long senderTransferId,
        final long packedBytes,
        final long signatureHash,
        final long signatureLength,
        final long signatureSizeBytes,
        final byte[] payload,
        final int creditBytes)
    {
        this.type = type;
        this.source = source;
        this.tag = tag;
        this.contextId = contextId;
        this.synchronous = synchronous;
        this.senderTransferId = senderTransferId;
        this.packedBytes = packedBytes;
        this.signatureHash = signatureHash;
        this.signatureLength = signatureLength;
        this.signatureSizeBytes = signatureSizeBytes;
        this.payload = payload;
        this.creditBytes = creditBytes;
    }

    boolean isEager()
    {
        return type == MessageType.EAGER;
    }

    public String toString()
    {
        return MessageType.name(type) + "{source=" + source + ", tag=" + tag + ", bytes=" + packedBytes + "}";
    }
}
