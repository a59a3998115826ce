package io.stagecoach.protocol.wire;

import org.agrona.DirectBuffer;

/**
 * {@link MessageType#CTS}: the receiver matched an RTS and may receive its payload. After the
 * {@link MessageHeaderFlyweight common header}:
 * <pre>
 *   16 sender transfer id (long)     as in the RTS
 *   24 receiver transfer id (long)   to be named by every DATA and the FIN of this transfer
 *   32 window bytes (long)           packed bytes the sender may send before the next CTS of this transfer
 * </pre>
 */
public final class ClearToSendFlyweight extends MessageHeaderFlyweight
{
    /** Length of a CTS message. */
    public static final int LENGTH = 40;
    /**
     * Flag: the receiver maps the slot region that the RTS ({@link EnvelopeFlyweight#FLAG_ARENA_CHUNKS}) named, and
     * takes the chunks from there: the sender names each packed chunk with a {@link MessageType#CHUNK} instead of
     * sending DATA, and reuses its slot when the receiver's {@link MessageType#CHUNK_DONE} comes.
     */
    public static final int FLAG_ARENA = 0x1;

    static final int SENDER_TRANSFER_OFFSET = 16;
    static final int RECEIVER_TRANSFER_OFFSET = 24;
    static final int WINDOW_OFFSET = 32;

    /**
     * {@inheritDoc}
     */
    public ClearToSendFlyweight wrap(final DirectBuffer buffer, final int offset)
    {
        super.wrap(buffer, offset);
        return this;
    }

    /**
     * {@inheritDoc}
     */
    public ClearToSendFlyweight wrap(final DirectBuffer buffer, final int offset, final int length)
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
    public ClearToSendFlyweight senderTransferId(final long transferId)
    {
        buffer.putLong(SENDER_TRANSFER_OFFSET, transferId, ORDER);
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
    public ClearToSendFlyweight receiverTransferId(final long transferId)
    {
        buffer.putLong(RECEIVER_TRANSFER_OFFSET, transferId, ORDER);
        return this;
    }

    /**
     * @return packed bytes the sender may send before it waits for the next CTS of this transfer.
     */
    public long windowBytes()
    {
        return buffer.getLong(WINDOW_OFFSET, ORDER);
    }

    /**
     * @param windowBytes packed bytes the sender may send.
     * @return this.
     */
    public ClearToSendFlyweight windowBytes(final long windowBytes)
    {
        buffer.putLong(WINDOW_OFFSET, windowBytes, ORDER);
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
