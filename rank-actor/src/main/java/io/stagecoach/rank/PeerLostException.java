package io.stagecoach.rank;

import io.stagecoach.protocol.ErrorClass;

/**
 * A request waited on a rank that died, lost its connection, or closed its communicator: error class
 * {@link ErrorClass#PROC_FAILED}, or {@link ErrorClass#PROC_FAILED_PENDING} for a receive from any source once no
 * other rank is left ({@link #peer()} is then the last rank lost, or -1).
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
        this(peer, ErrorClass.PROC_FAILED, message);
    }

    /**
     * @param peer       the rank that is gone, or -1.
     * @param errorClass {@link ErrorClass#PROC_FAILED} or {@link ErrorClass#PROC_FAILED_PENDING}.
     * @param message    names the rank, why it is gone and what waited on it.
     */
    public PeerLostException(final int peer, final ErrorClass errorClass, final String message)
    {
        super(errorClass, message);
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
