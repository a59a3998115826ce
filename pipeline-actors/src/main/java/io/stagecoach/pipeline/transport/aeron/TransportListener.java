package io.stagecoach.pipeline.transport.aeron;

/**
 * Told by an {@link AeronTransport} of changes in the connectivity of its peers: lost streams on the Aeron client's
 * conductor thread, lost inboxes on the thread that runs
 * {@link AeronTransport#doWork(io.aeron.logbuffer.FragmentHandler, int)}. Implementations hand the news to their
 * owner's thread and return at once.
 */
public interface TransportListener
{
    /**
     * The stream of messages from a peer ended: its publication closed or its process stopped sending heartbeats.
     * Whatever it sent before was delivered first.
     *
     * @param rank   the peer.
     * @param reason what Aeron reported.
     */
    void onPeerStreamLost(int rank, String reason);

    /**
     * This rank can no longer send to a peer: the peer's inbox subscription is gone.
     *
     * @param rank   the peer.
     * @param reason what Aeron reported.
     */
    void onPeerInboxLost(int rank, String reason);
}
