package io.stagecoach.rank.bootstrap;

/**
 * Told of failures seen by a {@link RendezvousClient}. Methods are called on the client's reader thread: they must
 * return quickly and must not call the client (hand the event to another thread or an actor instead).
 */
public interface RendezvousListener
{
    /**
     * A peer rank's process died or lost its connection to the rendezvous service. Called at most once per rank.
     *
     * @param rank   the rank that died.
     * @param reason what the launcher observed, e.g. {@code "exit status 137 (signal 9, SIGKILL)"}.
     */
    void onPeerDeath(int rank, String reason);

    /**
     * The connection to the rendezvous service was lost (the launcher is gone or ended the job). Called at most
     * once, never after {@link RendezvousClient#close()}.
     *
     * @param reason what failed.
     */
    default void onServerLost(final String reason)
    {
    }
}
