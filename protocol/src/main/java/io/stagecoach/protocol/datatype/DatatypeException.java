package io.stagecoach.protocol.datatype;

/**
 * A datatype was misused: an invalid constructor argument, a query on a freed type, a pack on an uncommitted
 * type, or a size or extent that does not fit the limits of the engine. The message names the offending value
 * and the limit it broke.
 */
public class DatatypeException extends RuntimeException
{
    private static final long serialVersionUID = 1L;

    /**
     * @param message what was wrong, naming the value and the limit.
     */
    public DatatypeException(final String message)
    {
        super(message);
    }
}
