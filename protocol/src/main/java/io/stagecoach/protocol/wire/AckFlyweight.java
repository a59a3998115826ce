package io.stagecoach.protocol.wire;

import org.agrona.DirectBuffer;

/**
 * {@link MessageType#ACK}: a synchronous-mode EAGER message was matched by a receive. After the
 * {@link MessageHeaderFlyweight common header}:
 * <pre>
 *   16 sender transfer id (long)   as in the EAGER message
 * </pre>
 */
public final class AckFlyweight extends MessageHeaderFlyweight
{
    /** Length of an ACK message. */
    public static final int LENGTH = 24;

    static final int SENDER_TRANSFER_OFFSET = 16;

    /**
     * {@inheritDoc}
     */
    public AckFlyweight wrap(final DirectBuffer buffer, final int offset)
    {
        super.wrap(buffer, offset);
        return this;
    }

    /**
     * {@inheritDoc}
     */
    public AckFlyweight wrap(final DirectBuffer buffer, final int offset, final int length)
    {
        super.wrap(buffer, offset, length);
        return this;
    }

    /**
     * @return the sender's transfer id.
     */
    public long senderTransferId()
    {
        return buffer.getLong(SENDER_TRANSFER_OFFSET, ORDER);
    }

    /**
     * @param transferId the sender's transfer id.
     * @return this.
     */
    public AckFlyweight senderTransferId(final long transferId)
    {
        buffer.putLong(SENDER_TRANSFER_OFFSET, transferId, ORDER);
        return this;
    }

    /**
     * @return {@link #LENGTH}.
     */
    public int encodedLength()
    {
        return LENGTH;
    }
}
