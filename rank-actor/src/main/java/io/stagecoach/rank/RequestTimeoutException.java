package io.stagecoach.rank;

import io.stagecoach.protocol.ErrorClass;

/**
 * A wait on a request ended before the request completed; error class {@link ErrorClass#PENDING}. The request
 * itself goes on: wait again, or cancel a receive ({@link Request#cancel()}).
 */
public final class RequestTimeoutException extends StagecoachException
{
    private static final long serialVersionUID = 1L;

    /**
     * @param message names the request and the time waited.
     */
    public RequestTimeoutException(final String message)
    {
        super(ErrorClass.PENDING, message);
    }
}
