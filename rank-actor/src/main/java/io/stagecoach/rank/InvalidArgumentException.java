package io.stagecoach.rank;

import java.util.Objects;

import io.stagecoach.protocol.ErrorClass;

/**
 * An argument of a communication call is invalid: a rank outside the job, a negative tag or count, a buffer that
 * is null, too small or unusable. An {@link IllegalArgumentException}, with the MPI error class of the argument
 * ({@link ErrorClass#RANK}, {@link ErrorClass#TAG}, {@link ErrorClass#COUNT}, {@link ErrorClass#BUFFER}, ...).
 */
public final class InvalidArgumentException extends IllegalArgumentException
{
    private static final long serialVersionUID = 1L;

    private final ErrorClass errorClass;

    /**
     * @param errorClass the MPI error class of the argument.
     * @param message    naming the argument, its value and the limit.
     */
    public InvalidArgumentException(final ErrorClass errorClass, final String message)
    {
        super(message);
        this.errorClass = Objects.requireNonNull(errorClass, "errorClass");
    }

    /**
     * @return the MPI error class of the argument.
     */
    public ErrorClass errorClass()
    {
        return errorClass;
    }
}
