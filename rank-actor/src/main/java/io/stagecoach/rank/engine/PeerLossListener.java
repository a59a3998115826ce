package io.stagecoach.rank.engine;

/**
 * Told when this rank loses a peer (not when a peer leaves with BYE): the launcher learns from it which rank a
 * failure started from.
 */
@FunctionalInterface
public interface PeerLossListener
{
    /** Tells no one. */
    PeerLossListener NONE = (rank, reason) ->
    {
    };

    /**
     * @param rank   the peer lost.
     * @param reason why, as in the errors of the requests that waited on it.
     */
    void onPeerLost(int rank, String reason);
}
