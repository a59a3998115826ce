package io.stagecoach.protocol.wire;

import org.agrona.DirectBuffer;

/**
 * {@link MessageType#FIN}: the sender has sent every DATA fragment of a transfer. After the
 * {@link MessageHeaderFlyweight common header}:
 * <pre>
 *   16 receiver transfer id (long)
 *   24 total bytes (long)          packed bytes sent in DATA fragments, equal to the RTS's packed bytes
 * </pre>
 */
public final class FinFlyweight extends MessageHeaderFlyweight
{
    /** Length of a FIN message. */
    public static final int LENGTH = 32;

    static final int RECEIVER_TRANSFER_OFFSET = 16;
    static final int TOTAL_BYTES_OFFSET = 24;

    /**
     * {@inheritDoc}
     */
    public FinFlyweight wrap(final DirectBuffer buffer, final int offset)
    {
        super.wrap(buffer, offset);
        return this;
    }

    /**
     * {@inheritDoc}
     */
    public FinFlyweight wrap(final DirectBuffer buffer, final int offset, final int length)
    {
        super.wrap(buffer, offset, length);
        return this;
    }

    /**
     * @return the receiver's transfer id.
     */
    public long receiverTransferId()
    {
        return buffer.getLong(RECEIVER_TRANSFER_OFFSET, ORDER);
    }

    /**
     * @param transferId the receiver's transfer id.
     * @return this.
     */
    public FinFlyweight receiverTransferId(final long transferId)
    {
        buffer.putLong(RECEIVER_TRANSFER_OFFSET, transferId, ORDER);
        return this;
    }

    /**
     * @return packed bytes the sender sent.
     */
    public long totalBytes()
    {
        return buffer.getLong(TOTAL_BYTES_OFFSET, ORDER);
    }

    /**
     * @param totalBytes packed bytes the sender sent.
     * @return this.
     */
    public FinFlyweight totalBytes(final long totalBytes)
    {
        buffer.putLong(TOTAL_BYTES_OFFSET, totalBytes, ORDER);
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
