package io.stagecoach.rank;

/**
 * A wait on a request ended before the request completed. The request itself goes on.
 */
public final class RequestTimeoutException extends StagecoachException
{
    private static final long serialVersionUID = 1L;

    /**
     * @param message names the request and the time waited.
     */
    public RequestTimeoutException(final String message)
    {
        super(message);
    }
}
