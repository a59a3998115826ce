package io.stagecoach.protocol.wire;

import org.agrona.DirectBuffer;

/**
 * {@link MessageType#HELLO}: the sending rank is connected with every rank of its job, both ways. A rank's start
 * ends once a HELLO from every peer has arrived, so that no rank leaves, or sends, before the others can hear it.
 * It names the sender's process, so that a peer on the same node can tell from the process table when it is gone.
 * After the {@link MessageHeaderFlyweight common header}:
 * <pre>
 *   16 process id (long)
 *   24 process start time (long)   milliseconds since the epoch, 0 when unknown
 * </pre>
 */
public final class HelloFlyweight extends MessageHeaderFlyweight
{
    /** Length of a HELLO message. */
    public static final int LENGTH = 32;

    static final int PID_OFFSET = 16;
    static final int START_TIME_OFFSET = 24;

    /**
     * {@inheritDoc}
     */
    public HelloFlyweight wrap(final DirectBuffer buffer, final int offset, final int length)
    {
        super.wrap(buffer, offset, length);
        return this;
    }

    /**
     * @return the sender's process id.
     */
    public long pid()
    {
        return buffer.getLong(PID_OFFSET, ORDER);
    }

    /**
     * @param pid the sender's process id.
     * @return this.
     */
    public HelloFlyweight pid(final long pid)
    {
        buffer.putLong(PID_OFFSET, pid, ORDER);
        return this;
    }

    /**
     * @return when the sender's process started, in milliseconds since the epoch; 0 when unknown.
     */
    public long startTimeMs()
    {
        return buffer.getLong(START_TIME_OFFSET, ORDER);
    }

    /**
     * @param startTimeMs when the sender's process started, in milliseconds since the epoch; 0 when unknown.
     * @return this.
     */
    public HelloFlyweight startTimeMs(final long startTimeMs)
    {
        buffer.putLong(START_TIME_OFFSET, startTimeMs, ORDER);
        return this;
    }
}
