package io.stagecoach.rank;

/**
 * A communication failed for a reason other than a datatype rule: a lost peer, a closed communicator, a protocol
 * violation, a device staging failure, or an error reported by the other end of a transfer.
 */
public class StagecoachException extends RuntimeException
{
    private static final long serialVersionUID = 1L;

    /**
     * @param message what failed, naming the ranks and values involved.
     */
    public StagecoachException(final String message)
    {
        super(message);
    }

    /**
     * @param message what failed.
     * @param cause   the underlying failure.
     */
    public StagecoachException(final String message, final Throwable cause)
    {
        super(message, cause);
    }
}
