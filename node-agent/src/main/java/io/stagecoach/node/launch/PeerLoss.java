package io.stagecoach.node.launch;

/**
 * A rank's report that it lost a peer ({@code LOST <rank> <reason>} on the rendezvous connection), sent before it
 * failed because of it.
 *
 * @param peer   the rank it lost.
 * @param reason what it observed.
 */
public record PeerLoss(int peer, String reason)
{
}
