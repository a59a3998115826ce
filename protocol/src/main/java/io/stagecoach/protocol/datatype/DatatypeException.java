package io.stagecoach.protocol.datatype;

import java.util.Objects;

import io.stagecoach.protocol.ErrorClass;

/**
 * A datatype was misused: an invalid constructor argument, a query on a freed type, a pack on an uncommitted
 * type, or a size or extent that does not fit the limits of the engine. The message names the offending value
 * and the limit it broke; {@link #errorClass()} says which kind of error it is, as MPI's error class would.
 */
public class DatatypeException extends RuntimeException
{
    private static final long serialVersionUID = 1L;

    private final ErrorClass errorClass;

    /**
     * @param errorClass the MPI error class: {@link ErrorClass#COUNT} for a bad count, {@link ErrorClass#ARG} for
     *                   another bad argument, {@link ErrorClass#TYPE} for an uncommitted or freed type, ...
     * @param message    what was wrong, naming the value and the limit.
     */
    public DatatypeException(final ErrorClass errorClass, final String message)
    {
        super(message);
        this.errorClass = Objects.requireNonNull(errorClass, "errorClass");
    }

    /**
     * @return the MPI error class of the error.
     */
    public ErrorClass errorClass()
    {
        return errorClass;
    }
}
