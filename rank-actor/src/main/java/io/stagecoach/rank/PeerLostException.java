package io.stagecoach.rank;

/**
 * A request waited on a rank that died, lost its connection, or closed its communicator.
 */
public final class PeerLostException extends StagecoachException
{
    private static final long serialVersionUID = 1L;

    private final int peer;

    /**
     * @param peer    the rank that is gone.
     * @param message names the rank, why it is gone and what waited on it.
     */
    public PeerLostException(final int peer, final String message)
    {
        super(message);
        this.peer = peer;
    }

    /**
     * @return the rank that is gone.
     */
    public int peer()
    {
        return peer;
    }
}
