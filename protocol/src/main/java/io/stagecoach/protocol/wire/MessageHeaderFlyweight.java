package io.stagecoach.protocol.wire;

import java.nio.ByteOrder;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The header every Stagecoach wire message starts with, little-endian:
 * <pre>
 *   0      1      2             4                 8                 12                16
 *   +------+------+-------------+-----------------+-----------------+-----------------+
 *   | ver  | type |    flags    |   source rank   | destination rank|  credit bytes   |
 *   +------+------+-------------+-----------------+-----------------+-----------------+
 * </pre>
 * {@code credit bytes} is eager credit the source returns to the destination, piggybacked on any message.
 * <p>
 * A flyweight: {@link #wrap(DirectBuffer, int)} points it at a message in a buffer (an Aeron term buffer or a
 * claimed region) without copying or allocating; getters read and setters write that memory in place. The
 * same instance is reused for every message.
 */
public class MessageHeaderFlyweight
{
    /** The protocol version this code writes and accepts. */
    public static final int CURRENT_VERSION = 1;
    /** Length of the common header in bytes. */
    public static final int HEADER_LENGTH = 16;

    static final ByteOrder ORDER = ByteOrder.LITTLE_ENDIAN;

    static final int VERSION_OFFSET = 0;
    static final int TYPE_OFFSET = 1;
    static final int FLAGS_OFFSET = 2;
    static final int SOURCE_OFFSET = 4;
    static final int DESTINATION_OFFSET = 8;
    static final int CREDIT_OFFSET = 12;

    /** The view of the wrapped message; offsets in subclasses are relative to its start. */
    protected final UnsafeBuffer buffer = new UnsafeBuffer(0, 0);

    /**
     * Points this flyweight at a message that starts at {@code offset} and runs to the end of {@code buffer}.
     *
     * @param buffer holding the message (writable when the setters are used).
     * @param offset of the first byte of the message.
     * @return this.
     */
    public MessageHeaderFlyweight wrap(final DirectBuffer buffer, final int offset)
    {
        return wrap(buffer, offset, buffer.capacity() - offset);
    }

    /**
     * Points this flyweight at a message of {@code length} bytes at {@code offset}.
     *
     * @param buffer holding the message.
     * @param offset of the first byte of the message.
     * @param length bytes of the message (or of the space reserved for it).
     * @return this.
     */
    public MessageHeaderFlyweight wrap(final DirectBuffer buffer, final int offset, final int length)
    {
        this.buffer.wrap(buffer, offset, length);
        return this;
    }

    /**
     * Writes version, type and flags and zeroes the credit field.
     *
     * @param type  a {@link MessageType}.
     * @param flags type-specific flags.
     * @return this.
     */
    public MessageHeaderFlyweight header(final int type, final int flags)
    {
        buffer.putByte(VERSION_OFFSET, (byte)CURRENT_VERSION);
        buffer.putByte(TYPE_OFFSET, (byte)type);
        buffer.putShort(FLAGS_OFFSET, (short)flags, ORDER);
        buffer.putInt(CREDIT_OFFSET, 0, ORDER);
        return this;
    }

    /**
     * @return the protocol version of the wrapped message.
     */
    public int version()
    {
        return buffer.getByte(VERSION_OFFSET) & 0xFF;
    }

    /**
     * @return the {@link MessageType}.
     */
    public int type()
    {
        return buffer.getByte(TYPE_OFFSET) & 0xFF;
    }

    /**
     * @return the flags.
     */
    public int flags()
    {
        return buffer.getShort(FLAGS_OFFSET, ORDER) & 0xFFFF;
    }

    /**
     * @param flags the flags to write.
     * @return this.
     */
    public MessageHeaderFlyweight flags(final int flags)
    {
        buffer.putShort(FLAGS_OFFSET, (short)flags, ORDER);
        return this;
    }

    /**
     * @return rank that sent the message.
     */
    public int sourceRank()
    {
        return buffer.getInt(SOURCE_OFFSET, ORDER);
    }

    /**
     * @param rank rank that sends the message.
     * @return this.
     */
    public MessageHeaderFlyweight sourceRank(final int rank)
    {
        buffer.putInt(SOURCE_OFFSET, rank, ORDER);
        return this;
    }

    /**
     * @return rank the message is for.
     */
    public int destinationRank()
    {
        return buffer.getInt(DESTINATION_OFFSET, ORDER);
    }

    /**
     * @param rank rank the message is for.
     * @return this.
     */
    public MessageHeaderFlyweight destinationRank(final int rank)
    {
        buffer.putInt(DESTINATION_OFFSET, rank, ORDER);
        return this;
    }

    /**
     * @return eager credit in bytes the source returns to the destination with this message.
     */
    public int creditBytes()
    {
        return buffer.getInt(CREDIT_OFFSET, ORDER);
    }

    /**
     * @param bytes eager credit returned to the destination.
     * @return this.
     */
    public MessageHeaderFlyweight creditBytes(final int bytes)
    {
        buffer.putInt(CREDIT_OFFSET, bytes, ORDER);
        return this;
    }

    /**
     * Checks that a received message can be decoded: long enough for its header, of the current version, of a
     * known type and long enough for that type's fixed fields.
     *
     * @param buffer holding the message.
     * @param offset of the message.
     * @param length of the message in bytes.
     * @return null when the message is well formed, otherwise why it is not.
     */
    public static String validate(final DirectBuffer buffer, final int offset, final int length)
    {
        if (length < HEADER_LENGTH)
        {
            return "message of " + length + " bytes is shorter than the " + HEADER_LENGTH + "-byte header";
        }
        final int version = buffer.getByte(offset + VERSION_OFFSET) & 0xFF;
        if (version != CURRENT_VERSION)
        {
            return "wire version " + version + " is not supported (this build speaks version " +
                CURRENT_VERSION + ")";
        }
        final int type = buffer.getByte(offset + TYPE_OFFSET) & 0xFF;
        final int minimumLength = MessageType.minimumLength(type);
        if (minimumLength < 0)
        {
            return "unknown message type " + type;
        }
        if (length < minimumLength)
        {
            return MessageType.name(type) + " message of " + length + " bytes is shorter than its " +
                minimumLength + "-byte fixed part";
        }
        if (type == MessageType.EAGER_SHORT && length > ShortEagerFlyweight.MAX_LENGTH)
        {
            return "EAGER_SHORT message of " + length + " bytes is longer than " + ShortEagerFlyweight.MAX_LENGTH;
        }
        final long declaredLength = type == MessageType.EAGER_SHORT ? length : declaredLength(type, buffer, offset);
        if (declaredLength < minimumLength || declaredLength > length)
        {
            return MessageType.name(type) + " message declares " + declaredLength + " bytes but has " + length;
        }
        return null;
    }

    private static long declaredLength(final int type, final DirectBuffer buffer, final int offset)
    {
        switch (type)
        {
            case MessageType.EAGER:
                return EnvelopeFlyweight.HEADER_LENGTH +
                    buffer.getLong(offset + EnvelopeFlyweight.PACKED_BYTES_OFFSET, ORDER);
            case MessageType.RTS:
                return (buffer.getShort(offset + FLAGS_OFFSET, ORDER) & EnvelopeFlyweight.FLAG_READABLE) != 0 ?
                    EnvelopeFlyweight.READABLE_LENGTH : EnvelopeFlyweight.HEADER_LENGTH;
            case MessageType.DATA:
                return DataFlyweight.HEADER_LENGTH +
                    (long)buffer.getInt(offset + DataFlyweight.PAYLOAD_LENGTH_OFFSET, ORDER);
            case MessageType.ERROR:
                return ErrorFlyweight.HEADER_LENGTH +
                    (long)buffer.getInt(offset + ErrorFlyweight.MESSAGE_LENGTH_OFFSET, ORDER);
            default:
                return MessageType.minimumLength(type);
        }
    }
}
