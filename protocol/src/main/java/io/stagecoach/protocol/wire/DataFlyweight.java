package io.stagecoach.protocol.wire;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * {@link MessageType#DATA}: a fragment of a rendezvous payload. After the
 * {@link MessageHeaderFlyweight common header}:
 * <pre>
 *   16 receiver transfer id (long)
 *   24 packed offset (long)        where the fragment starts in the packed payload
 *   32 payload length (int)
 *   36 reserved (int)
 *   40 payload
 * </pre>
 * Fragments of one transfer may be sized freely; a sender keeps each within the transport's largest unfragmented
 * message so that a receiver can unpack it straight from the transport's buffer.
 */
public final class DataFlyweight extends MessageHeaderFlyweight
{
    /** Length of the fixed part; the payload starts here. */
    public static final int HEADER_LENGTH = 40;

    static final int RECEIVER_TRANSFER_OFFSET = 16;
    static final int PACKED_OFFSET_OFFSET = 24;
    static final int PAYLOAD_LENGTH_OFFSET = 32;
    static final int RESERVED_OFFSET = 36;

    /**
     * {@inheritDoc}
     */
    public DataFlyweight wrap(final DirectBuffer buffer, final int offset)
    {
        super.wrap(buffer, offset);
        return this;
    }

    /**
     * {@inheritDoc}
     */
    public DataFlyweight wrap(final DirectBuffer buffer, final int offset, final int length)
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
    public DataFlyweight receiverTransferId(final long transferId)
    {
        buffer.putLong(RECEIVER_TRANSFER_OFFSET, transferId, ORDER);
        return this;
    }

    /**
     * @return offset in the packed payload of the fragment's first byte.
     */
    public long packedOffset()
    {
        return buffer.getLong(PACKED_OFFSET_OFFSET, ORDER);
    }

    /**
     * @param packedOffset offset in the packed payload of the fragment's first byte.
     * @return this.
     */
    public DataFlyweight packedOffset(final long packedOffset)
    {
        buffer.putLong(PACKED_OFFSET_OFFSET, packedOffset, ORDER);
        return this;
    }

    /**
     * @return length of the fragment's payload in bytes.
     */
    public int payloadLength()
    {
        return buffer.getInt(PAYLOAD_LENGTH_OFFSET, ORDER);
    }

    /**
     * @param lengthBytes length of the fragment's payload.
     * @return this.
     */
    public DataFlyweight payloadLength(final int lengthBytes)
    {
        buffer.putInt(PAYLOAD_LENGTH_OFFSET, lengthBytes, ORDER);
        buffer.putInt(RESERVED_OFFSET, 0, ORDER);
        return this;
    }

    /**
     * @return offset of the payload relative to the start of the message.
     */
    public int payloadOffset()
    {
        return HEADER_LENGTH;
    }

    /**
     * @return the buffer the flyweight wraps, for reading or writing the payload at {@link #payloadOffset()}.
     */
    public MutableDirectBuffer buffer()
    {
        return buffer;
    }

    /**
     * @return bytes the message occupies.
     */
    public int encodedLength()
    {
        return HEADER_LENGTH + payloadLength();
    }
}
