package io.stagecoach.protocol.datatype;

import io.stagecoach.protocol.ErrorClass;

/**
 * The type signature of a message is not a prefix of the signature the receiver expects (MPI type matching); its
 * {@link #errorClass()} is {@link ErrorClass#TYPE}.
 */
public final class SignatureMismatchException extends DatatypeException
{
    private static final long serialVersionUID = 1L;

    /**
     * @param message names both signatures and the context of the message.
     */
    public SignatureMismatchException(final String message)
    {
        super(ErrorClass.TYPE, message);
    }
}
