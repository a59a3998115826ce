package io.stagecoach.rank;

import java.util.Objects;

import io.stagecoach.protocol.ErrorClass;

/**
 * A communication failed for a reason other than a datatype rule or a bad argument: a lost peer, a closed
 * communicator, a protocol violation, a device staging failure, or an error reported by the other end of a
 * transfer. {@link #errorClass()} says which kind, as MPI's error class would.
 */
public class StagecoachException extends RuntimeException
{
    private static final long serialVersionUID = 1L;

    private final ErrorClass errorClass;

    /**
     * @param message what failed, naming the ranks and values involved; the class is {@link ErrorClass#OTHER}.
     */
    public StagecoachException(final String message)
    {
        this(ErrorClass.OTHER, message);
    }

    /**
     * @param message what failed.
     * @param cause   the underlying failure; the class is {@link ErrorClass#OTHER}.
     */
    public StagecoachException(final String message, final Throwable cause)
    {
        this(ErrorClass.OTHER, message, cause);
    }

    /**
     * @param errorClass the MPI error class: {@link ErrorClass#PROC_FAILED} for a lost peer,
     *                   {@link ErrorClass#COMM} for a closed communicator, ...
     * @param message    what failed, naming the ranks and values involved.
     */
    public StagecoachException(final ErrorClass errorClass, final String message)
    {
        this(errorClass, message, null);
    }

    /**
     * @param errorClass the MPI error class.
     * @param message    what failed.
     * @param cause      the underlying failure, or null.
     */
    public StagecoachException(final ErrorClass errorClass, final String message, final Throwable cause)
    {
        super(message, cause);
        this.errorClass = Objects.requireNonNull(errorClass, "errorClass");
    }

    /**
     * @return the MPI error class of the failure.
     */
    public ErrorClass errorClass()
    {
        return errorClass;
    }
}
