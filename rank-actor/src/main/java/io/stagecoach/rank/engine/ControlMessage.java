package io.stagecoach.rank.engine;

/**
 * A control message (CTS, ACK, ERROR, CREDIT, BYE) that could not be sent at once because the publication was
 * back-pressured; kept in its peer's queue and sent, in order, on a later duty cycle.
 */
final class ControlMessage
{
    final int type;
    final long first;
    final long second;
    final long third;
    final int flags;
    final int code;
    final String text;

    ControlMessage(
        final int type,
        final long first,
        final long second,
        final long third,
        final int flags,
        final int code,
        final String text)
    {
        this.type = type;
        this.first = first;
        this.second = second;
        this.third = third;
        this.flags = flags;
        this.code = code;
        this.text = text;
    }
}
