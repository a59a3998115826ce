package io.stagecoach.rank.engine;

import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.StringJoiner;
import java.util.function.Predicate;

import io.stagecoach.protocol.ErrorClass;
import io.stagecoach.rank.Communicator;
import io.stagecoach.rank.PeerLostException;
import io.stagecoach.rank.Request;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import static io.stagecoach.rank.engine.EngineErrors.closedError;
import static io.stagecoach.rank.engine.EngineErrors.goneError;

/**
 * The peers of the engine and their liveness, from facts: a peer is lost when the launcher reports it dead, its
 * process on this node is gone, its stream ends, its inbox disconnects and no goodbye follows within the liveness
 * timeout, or it breaks the protocol; it is gone, not lost, when it says goodbye (BYE). Either fails every request
 * that waits on it, naming it; closing the engine fails everything. Also where the peers stand in the HELLO
 * handshake of the start and the BYE handshake of the close.
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
    private final DevicePath device;
    private Peer[] peers;
    private final PeerProcesses processes;
    private volatile PeerLossListener lossListener = PeerLossListener.NONE;
    private long nextPeerCheckNs;

    PeerLiveness(
        final int rank,
        final int size,
        final EngineSettings settings,
        final MatchQueues queues,
        final Transfers transfers,
        final Completions completions,
        final PeerProcesses processes,
        final DevicePath device)
    {
        this.rank = rank;
        this.size = size;
        this.settings = settings;
        this.queues = queues;
        this.transfers = transfers;
        this.completions = completions;
        this.processes = processes;
        this.device = device;
    }

    void attach(final Peer[] attached, final long nowNs)
    {
        this.peers = attached;
        this.nextPeerCheckNs = nowNs;
        attached[rank].helloArrived = true;
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

    /**
     * The peer's stream ended: after its BYE that is how it leaves, and so it is once it acknowledged this rank's
     * BYE (the peer that reads a BYE first says none of its own: both sides are closing); otherwise it is lost.
     */
    void streamLost(final int peerRank, final String reason)
    {
        final Peer peer = peers[peerRank];
        if (peer.byeSent && peer.byeAcknowledged)
        {
            peerClosed(peer);
            return;
        }
        peerGone(peer, "is gone: " + reason);
    }

    /**
     * A peer said HELLO: it is connected both ways. When it runs on this node and its process can be seen here (the
     * same pid namespace: the pid names a process that started when the peer says), that process is watched
     * ({@link PeerProcesses}).
     */
    void helloArrived(final Peer peer, final long pid, final long startTimeMs)
    {
        peer.helloArrived = true;
        if (peer.local && pid > 0 && pid != ProcessHandle.current().pid())
        {
            ProcessHandle.of(pid)
                .filter(process -> startTimeMs == 0 || startTimeMs(process) == startTimeMs)
                .ifPresent(process -> processes.watch(peer.rank, process));
        }
    }

    /**
     * @return ranks still there that have not said HELLO yet, for example {@code [2, 3]}; empty once all have.
     */
    String missingHellos()
    {
        return ranks(peer -> !peer.helloArrived && !peer.isGone());
    }

    /**
     * @return true once every peer this rank said BYE to has answered with BYE_ACK or is lost.
     */
    boolean goodbyesConfirmed()
    {
        return ranks(this::awaitsByeAck).isEmpty();
    }

    /**
     * @return ranks this rank said BYE to that have neither answered nor been lost, for example {@code [1]}.
     */
    String unconfirmedGoodbyes()
    {
        return ranks(this::awaitsByeAck);
    }

    /**
     * @param when which peers to name.
     * @return ranks of the peers the filter accepts, for example {@code [2, 3]}; empty when none.
     */
    String ranks(final Predicate<Peer> when)
    {
        final StringJoiner ranks = new StringJoiner(", ", "[", "]").setEmptyValue("");
        for (final Peer peer : peers)
        {
            if (when.test(peer))
            {
                ranks.add(Integer.toString(peer.rank));
            }
        }
        return ranks.toString();
    }

    /**
     * @param process a process.
     * @return when it started, in milliseconds since the epoch; 0 when that cannot be seen.
     */
    static long startTimeMs(final ProcessHandle process)
    {
        return process.info().startInstant().map(Instant::toEpochMilli).orElse(0L);
    }

    private boolean awaitsByeAck(final Peer peer)
    {
        return peer.byeSent && !peer.byeAcknowledged && !peer.lost;
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

    /**
     * The peer says BYE: it leaves in an orderly way.
     */
    void peerClosed(final Peer peer)
    {
        peer.closed = true;
        markGone(peer, "closed its communicator");
    }

    void protocolError(final Peer peer, final String problem)
    {
        LOG.error("rank {} drops rank {} after a protocol error: {}", rank, peer.rank, problem);
        peerGone(peer, "broke the protocol: " + problem);
    }

    /**
     * Loses a peer: marks it gone, once, and lost (a peer that said BYE first is lost too when its process or stream
     * ends, so that nothing waits for its BYE_ACK).
     *
     * @param peer   the peer.
     * @param reason why, after "rank N " in the errors.
     */
    void peerGone(final Peer peer, final String reason)
    {
        if (!peer.lost && !peer.closed)
        {
            lossListener.onPeerLost(peer.rank, reason);
        }
        peer.lost = true;
        markGone(peer, reason);
    }

    /**
     * @param listener told of each peer lost from now on.
     */
    void lossListener(final PeerLossListener listener)
    {
        this.lossListener = listener;
    }

    /**
     * Marks a peer gone, once, and fails what waits on it: sends queued, awaiting CTS or streaming, receives matched
     * to it or posted for it, and receives from ANY_SOURCE once no other rank is left; the mappings of its device
     * memory close.
     */
    private void markGone(final Peer peer, final String reason)
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
            receive.source == peer.rank ? goneError(peer, receive.request) : lastPeerGone(peer, receive.request)));
        device.peerGone(peer.rank);
    }

    private static PeerLostException lastPeerGone(final Peer peer, final Request request)
    {
        return new PeerLostException(peer.rank, ErrorClass.PROC_FAILED_PENDING, "every other rank is gone, the last " +
            "was rank " + peer.rank + " (" + peer.goneReason + "): " + request);
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

    /**
     * Fails the receives in transfer that the filter names; those of a lost peer whose message the device is still
     * getting over IPC fail once it is done ({@link ReceiveOperation#ipcGet}).
     */
    private void failReceiveTransfers(final Predicate<ReceiveOperation> filter, final Peer peer)
    {
        final Iterator<ReceiveOperation> iterator = transfers.receives.values().iterator();
        while (iterator.hasNext())
        {
            final ReceiveOperation receive = iterator.next();
            if (filter.test(receive) && !(peer != null && receive.ipcGet))
            {
                iterator.remove();
                receive.releaseStaging();
                completions.fail(receive.request, peer == null ? closedError(rank, receive.request) :
                    goneError(peer, receive.request));
            }
        }
    }
}
