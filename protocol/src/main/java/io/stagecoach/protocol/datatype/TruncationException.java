package io.stagecoach.protocol.datatype;

import io.stagecoach.protocol.ErrorClass;

/**
 * An incoming message is longer than the receive buffer described by {@code count} instances of a datatype
 * (MPI_ERR_TRUNCATE); its {@link #errorClass()} is {@link ErrorClass#TRUNCATE}.
 */
public final class TruncationException extends DatatypeException
{
    private static final long serialVersionUID = 1L;

    private final long capacityBytes;
    private final long incomingBytes;

    /**
     * @param capacityBytes bytes the receive buffer holds.
     * @param incomingBytes bytes the message carries.
     * @param context       what the message was, for example {@code tag=7, source=1}.
     */
    public TruncationException(final long capacityBytes, final long incomingBytes, final String context)
    {
        super(ErrorClass.TRUNCATE, "receive buffer holds " + capacityBytes + " bytes, message has " + incomingBytes +
            (context == null || context.isEmpty() ? "" : " (" + context + ")"));
        this.capacityBytes = capacityBytes;
        this.incomingBytes = incomingBytes;
    }

    /**
     * @return bytes the receive buffer holds.
     */
    public long capacityBytes()
    {
        return capacityBytes;
    }

    /**
     * @return bytes the message carries.
     */
    public long incomingBytes()
    {
        return incomingBytes;
    }
}
