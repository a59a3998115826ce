package io.stagecoach.rank.engine;

import java.util.ArrayDeque;

import io.aeron.ExclusivePublication;
import io.stagecoach.protocol.wire.DataFlyweight;

/**
 * What one rank knows of a peer (itself included): the publication to its inbox, sequence numbers both ways,
 * eager credit both ways, the sends waiting to go to it in order, the rendezvous transfers streaming to it, control
 * messages held back by back-pressure, whether large messages from and to it may be read straight out of the
 * sender's memory (same node), whether it runs on this node, where it stands in the HELLO and BYE handshakes, and
 * whether it is gone, or lost.
 */
final class Peer
{
    final int rank;
    final ExclusivePublication publication;
    final int maxPayloadBytes;
    final int dataFragmentBytes;
    final ArrayDeque<SendOperation> pending = new ArrayDeque<>();
    final ArrayDeque<SendOperation> streaming = new ArrayDeque<>();
    final ArrayDeque<ControlMessage> control = new ArrayDeque<>();

    long eagerSends;
    long rendezvousSends;
    long reads;
    long arenaCopies;
    long directCopies;
    long arenaChunks;
    long ipcGets;
    long ipcReleases;
    long nextSequence;
    long expectedSequence;
    long eagerCreditBytes;
    int owedCreditBytes;
    boolean closed;
    boolean readable;
    boolean local;
    boolean lost;
    boolean helloArrived;
    boolean byeSent;
    boolean byeAcknowledged;
    String goneReason;
    long inboxLostAtNs = -1;
    String inboxLostReason;

    Peer(final int rank, final ExclusivePublication publication, final long eagerWindowBytes)
    {
        this.rank = rank;
        this.publication = publication;
        this.maxPayloadBytes = publication.maxPayloadLength();
        this.dataFragmentBytes = ((maxPayloadBytes - DataFlyweight.HEADER_LENGTH) / 64) * 64;
        this.eagerCreditBytes = eagerWindowBytes;
    }

    boolean isGone()
    {
        return goneReason != null;
    }

    boolean hasOutboundWork()
    {
        return !control.isEmpty() || !pending.isEmpty() || !streaming.isEmpty();
    }
}
