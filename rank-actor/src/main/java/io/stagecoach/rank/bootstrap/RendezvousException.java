package io.stagecoach.rank.bootstrap;

/**
 * A rendezvous operation failed: the service could not be reached or did not answer in time, a fence could not
 * complete (a rank died, left or did not arrive in time), or the service refused a request. The message names the
 * rank, the operation and what was waited for.
 */
public class RendezvousException extends RuntimeException
{
    private static final long serialVersionUID = 1L;

    /**
     * @param message naming the rank, the operation and the cause.
     */
    public RendezvousException(final String message)
    {
        super(message);
    }

    /**
     * @param message naming the rank, the operation and the cause.
     * @param cause   underlying failure.
     */
    public RendezvousException(final String message, final Throwable cause)
    {
        super(message, cause);
    }
}
