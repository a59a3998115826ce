package io.stagecoach.rank;

import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.function.Predicate;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import static io.stagecoach.rank.EngineErrors.closedError;
import static io.stagecoach.rank.EngineErrors.goneError;

/**
 * The peers of the engine and their liveness: a peer is lost when the launcher reports it dead, its stream ends,
 * its inbox disconnects and no goodbye follows within the liveness timeout, it breaks the protocol or it says
 * goodbye. Losing a peer fails every request that waits on it, naming it; closing the engine fails everything.
 */
final class PeerLiveness
{
    private static final Logger LOG = LoggerFactory.getLogger(ProgressEngine.class);

    private final int rank;
    private final int size;
    private final EngineSettings settings;
    private final MatchQueues queues;
    private final Transfers transfers;
    private final Completions completions;
    private Peer[] peers;
    private long nextPeerCheckNs;

    PeerLiveness(
        final int rank,
        final int size,
        final EngineSettings settings,
        final MatchQueues queues,
        final Transfers transfers,
        final Completions completions)
    {
        this.rank = rank;
        this.size = size;
        this.settings = settings;
        this.queues = queues;
        this.transfers = transfers;
        this.completions = completions;
    }

    void attach(final Peer[] attached, final long nowNs)
    {
        this.peers = attached;
        this.nextPeerCheckNs = nowNs;
    }

    /**
     * @return true once the transport is attached and the peers known.
     */
    boolean isAttached()
    {
        return peers != null;
    }

    Peer peer(final int peerRank)
    {
        return peers[peerRank];
    }

    /**
     * @return every rank, this one included, by rank; null before the transport is attached.
     */
    Peer[] peers()
    {
        return peers;
    }

    void peerDied(final int peerRank, final String reason)
    {
        if (peerRank >= 0 && peerRank < size && peerRank != rank)
        {
            peerGone(peers[peerRank], "died: " + reason);
        }
    }

    void streamLost(final int peerRank, final String reason)
    {
        final Peer peer = peers[peerRank];
        if (!peer.closed)
        {
            peerGone(peer, "is gone: " + reason);
        }
    }

    void inboxLost(final int peerRank, final String reason)
    {
        final Peer peer = peers[peerRank];
        if (!peer.closed && peer.inboxLostAtNs == -1)
        {
            peer.inboxLostAtNs = System.nanoTime();
            peer.inboxLostReason = "is gone: " + reason;
        }
    }

    /**
     * At the check interval, loses each peer whose inbox disconnected longer than the liveness timeout ago.
     *
     * @param nowNs {@link System#nanoTime()} of the duty cycle.
     */
    void check(final long nowNs)
    {
        if (nowNs - nextPeerCheckNs < 0)
        {
            return;
        }
        nextPeerCheckNs = nowNs + settings.peerCheckIntervalNs();
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

    void protocolError(final Peer peer, final String problem)
    {
        LOG.error("rank {} drops rank {} after a protocol error: {}", rank, peer.rank, problem);
        peerGone(peer, "broke the protocol: " + problem);
    }

    /**
     * Marks a peer gone, once, and fails what waits on it: sends queued, awaiting CTS or streaming, receives matched
     * to it or posted for it, and receives from ANY_SOURCE once no other rank is left.
     *
     * @param peer   the peer.
     * @param reason why, after "rank N " in the errors.
     */
    void peerGone(final Peer peer, final String reason)
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

    /**
     * Fails the sends of a queue towards a lost peer.
     *
     * @param sends a queue of the peer.
     * @param peer  gone.
     */
    void failAll(final ArrayDeque<SendOperation> sends, final Peer peer)
    {
        SendOperation send;
        while ((send = sends.pollFirst()) != null)
        {
            transfers.sends.remove(send.transferId);
            send.releaseStaged();
            completions.fail(send.request, goneError(peer, send.request));
        }
    }

    /**
     * @return true when every other rank is gone (never for a rank alone).
     */
    boolean noLivePeer()
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

    /**
     * Fails every request still in flight as the engine closes, and drops the unexpected messages.
     */
    void failEverything()
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

    private void failSendTransfers(final Predicate<SendOperation> filter, final Peer peer)
    {
        final Iterator<SendOperation> iterator = transfers.sends.values().iterator();
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
        final Iterator<ReceiveOperation> iterator = transfers.receives.values().iterator();
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
}
