package io.stagecoach.protocol.wire;

import java.nio.charset.StandardCharsets;

import org.agrona.DirectBuffer;

/**
 * {@link MessageType#ERROR}: a transfer failed at the other end. After the
 * {@link MessageHeaderFlyweight common header}:
 * <pre>
 *   16 transfer id (long)          in the recipient's id space: its send ({@link #FLAG_SEND}) or receive
 *   24 error code (int)
 *   28 message length (int)        bytes of UTF-8, at most {@link #MAX_MESSAGE_BYTES}
 *   32 message (UTF-8)
 * </pre>
 */
public final class ErrorFlyweight extends MessageHeaderFlyweight
{
    /** Length of the fixed part; the message starts here. */
    public static final int HEADER_LENGTH = 32;
    /** Longest message written; longer ones are cut at a character boundary. */
    public static final int MAX_MESSAGE_BYTES = 1024;

    /** Flag: the transfer id names the recipient's send. */
    public static final int FLAG_SEND = 0x1;
    /** Flag: the transfer id names the recipient's receive. */
    public static final int FLAG_RECEIVE = 0x2;

    /** The receive buffer is smaller than the message. */
    public static final int CODE_TRUNCATED = 1;
    /** The message's type signature is not a prefix of the receive's. */
    public static final int CODE_SIGNATURE_MISMATCH = 2;
    /** A message broke the protocol (unknown transfer, out-of-order sequence, bad length). */
    public static final int CODE_PROTOCOL = 3;
    /** Staging a device buffer through host memory failed. */
    public static final int CODE_STAGING = 4;
    /** The other end is closing and abandons the transfer. */
    public static final int CODE_CLOSED = 5;

    static final int TRANSFER_OFFSET = 16;
    static final int CODE_OFFSET = 24;
    static final int MESSAGE_LENGTH_OFFSET = 28;

    /**
     * {@inheritDoc}
     */
    public ErrorFlyweight wrap(final DirectBuffer buffer, final int offset)
    {
        super.wrap(buffer, offset);
        return this;
    }

    /**
     * {@inheritDoc}
     */
    public ErrorFlyweight wrap(final DirectBuffer buffer, final int offset, final int length)
    {
        super.wrap(buffer, offset, length);
        return this;
    }

    /**
     * @return the transfer id in the recipient's id space.
     */
    public long transferId()
    {
        return buffer.getLong(TRANSFER_OFFSET, ORDER);
    }

    /**
     * @param transferId the transfer id in the recipient's id space.
     * @return this.
     */
    public ErrorFlyweight transferId(final long transferId)
    {
        buffer.putLong(TRANSFER_OFFSET, transferId, ORDER);
        return this;
    }

    /**
     * @return one of the {@code CODE_*} constants.
     */
    public int errorCode()
    {
        return buffer.getInt(CODE_OFFSET, ORDER);
    }

    /**
     * @param code one of the {@code CODE_*} constants.
     * @return this.
     */
    public ErrorFlyweight errorCode(final int code)
    {
        buffer.putInt(CODE_OFFSET, code, ORDER);
        return this;
    }

    /**
     * @return length of the UTF-8 message in bytes.
     */
    public int messageLength()
    {
        return buffer.getInt(MESSAGE_LENGTH_OFFSET, ORDER);
    }

    /**
     * @return the message, decoded from UTF-8.
     */
    public String message()
    {
        return buffer.getStringWithoutLengthUtf8(HEADER_LENGTH, messageLength());
    }

    /**
     * Writes the message as UTF-8, cut to at most {@link #MAX_MESSAGE_BYTES} bytes at a character boundary.
     *
     * @param message the text, null for none.
     * @return this.
     */
    public ErrorFlyweight message(final String message)
    {
        final byte[] utf8 = utf8Within(message == null ? "" : message, MAX_MESSAGE_BYTES);
        buffer.putInt(MESSAGE_LENGTH_OFFSET, utf8.length, ORDER);
        buffer.putBytes(HEADER_LENGTH, utf8);
        return this;
    }

    /**
     * @return bytes the message occupies.
     */
    public int encodedLength()
    {
        return HEADER_LENGTH + messageLength();
    }

    /**
     * @param message an error message.
     * @return bytes an ERROR carrying it occupies.
     */
    public static int encodedLength(final String message)
    {
        return HEADER_LENGTH + utf8Within(message == null ? "" : message, MAX_MESSAGE_BYTES).length;
    }

    /**
     * @param code an error code.
     * @return its name.
     */
    public static String codeName(final int code)
    {
        switch (code)
        {
            case CODE_TRUNCATED:
                return "TRUNCATED";
            case CODE_SIGNATURE_MISMATCH:
                return "SIGNATURE_MISMATCH";
            case CODE_PROTOCOL:
                return "PROTOCOL";
            case CODE_STAGING:
                return "STAGING";
            case CODE_CLOSED:
                return "CLOSED";
            default:
                return "UNKNOWN(" + code + ")";
        }
    }

    static byte[] utf8Within(final String message, final int maxBytes)
    {
        int chars = Math.min(message.length(), maxBytes);
        while (true)
        {
            if (chars > 0 && chars < message.length() && Character.isHighSurrogate(message.charAt(chars - 1)))
            {
                chars--;
            }
            final byte[] utf8 = message.substring(0, chars).getBytes(StandardCharsets.UTF_8);
            if (utf8.length <= maxBytes)
            {
                return utf8;
            }
            chars -= Math.max(1, (utf8.length - maxBytes) / 3);
        }
    }
}
