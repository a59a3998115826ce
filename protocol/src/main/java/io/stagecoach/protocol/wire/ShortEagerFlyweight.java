package io.stagecoach.protocol.wire;

import java.nio.ByteOrder;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * An EAGER message of at most {@link #MAX_PAYLOAD_BYTES} bytes in one cache line with its Aeron frame header (32 + 32
 * bytes): the envelope of a small standard-mode send without the fields it can do without. The source is the rank of
 * the Aeron session it came on, the destination the inbox it came to; it returns no credit; the sequence travels as
 * its low 32 bits (messages of a pair arrive in order, so the receiver knows the rest); the signature's size is the
 * payload's length, its length in elements rides in the flags' high byte.
 * <pre>
 *   0 version (byte)   1 type EAGER_SHORT (byte)   2 flags (byte, 0)   3 signature length in elements (byte)
 *   4 context id (int)   8 tag (int)   12 sequence, low 32 bits (int)   16 signature hash (long)
 *  24 payload, 0 to 8 bytes: the message's length less 24
 * </pre>
 */
public final class ShortEagerFlyweight
{
    /** Bytes before the payload. */
    public static final int HEADER_LENGTH = 24;
    /** Largest payload. */
    public static final int MAX_PAYLOAD_BYTES = 8;
    /** Largest message. */
    public static final int MAX_LENGTH = HEADER_LENGTH + MAX_PAYLOAD_BYTES;
    /** Largest signature length in elements that the form carries. */
    public static final int MAX_SIGNATURE_LENGTH = 0xFF;

    static final int SIGNATURE_LENGTH_OFFSET = 3;
    static final int CONTEXT_OFFSET = 4;
    static final int TAG_OFFSET = 8;
    static final int SEQUENCE_OFFSET = 12;
    static final int SIGNATURE_HASH_OFFSET = 16;

    private static final ByteOrder ORDER = MessageHeaderFlyweight.ORDER;

    private final UnsafeBuffer buffer = new UnsafeBuffer(0, 0);
    private int length;

    /**
     * @return whether a standard-mode send of this shape fits the form.
     */
    public static boolean fits(final long packedBytes, final long signatureLength)
    {
        return packedBytes <= MAX_PAYLOAD_BYTES && signatureLength >= 0 && signatureLength <= MAX_SIGNATURE_LENGTH;
    }

    /**
     * Points this flyweight at a message of {@code length} bytes.
     *
     * @return this.
     */
    public ShortEagerFlyweight wrap(final DirectBuffer buffer, final int offset, final int length)
    {
        this.buffer.wrap(buffer, offset, length);
        this.length = length;
        return this;
    }

    /**
     * Writes the whole header; the payload follows at {@link #HEADER_LENGTH}.
     *
     * @return this.
     */
    public ShortEagerFlyweight write(final int contextId, final int tag, final long sequence, final long signatureHash,
        final long signatureLength)
    {
        buffer.putByte(MessageHeaderFlyweight.VERSION_OFFSET, (byte)MessageHeaderFlyweight.CURRENT_VERSION);
        buffer.putByte(MessageHeaderFlyweight.TYPE_OFFSET, (byte)MessageType.EAGER_SHORT);
        buffer.putByte(MessageHeaderFlyweight.FLAGS_OFFSET, (byte)0);
        buffer.putByte(SIGNATURE_LENGTH_OFFSET, (byte)signatureLength);
        buffer.putInt(CONTEXT_OFFSET, contextId, ORDER);
        buffer.putInt(TAG_OFFSET, tag, ORDER);
        buffer.putInt(SEQUENCE_OFFSET, (int)sequence, ORDER);
        buffer.putLong(SIGNATURE_HASH_OFFSET, signatureHash, ORDER);
        return this;
    }

    public int contextId()
    {
        return buffer.getInt(CONTEXT_OFFSET, ORDER);
    }

    public int tag()
    {
        return buffer.getInt(TAG_OFFSET, ORDER);
    }

    /**
     * @param expected the sequence due from the sender.
     * @return the full sequence, the expected one's high bits with the message's low 32.
     */
    public long sequence(final long expected)
    {
        return (expected & 0xFFFF_FFFF_0000_0000L) | (buffer.getInt(SEQUENCE_OFFSET, ORDER) & 0xFFFF_FFFFL);
    }

    public long signatureHash()
    {
        return buffer.getLong(SIGNATURE_HASH_OFFSET, ORDER);
    }

    public long signatureLength()
    {
        return buffer.getByte(SIGNATURE_LENGTH_OFFSET) & 0xFF;
    }

    /**
     * @return the payload's length, which is also the signature's size in bytes.
     */
    public int payloadLength()
    {
        return length - HEADER_LENGTH;
    }
}
