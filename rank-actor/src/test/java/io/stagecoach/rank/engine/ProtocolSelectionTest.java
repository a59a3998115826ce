package io.stagecoach.rank.engine;

import io.stagecoach.protocol.wire.EnvelopeFlyweight;
import io.stagecoach.protocol.wire.MessageType;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

class ProtocolSelectionTest
{
    private static final int THRESHOLD = 16 * 1024;
    private static final long WINDOW = 256 * 1024;

    @Test
    void shouldSendEagerlyUpToTheThresholdInclusive()
    {
        assertEquals(MessageType.EAGER, WireSender.protocolFor(0, THRESHOLD, WINDOW));
        assertEquals(MessageType.EAGER, WireSender.protocolFor(8, THRESHOLD, WINDOW));
        assertEquals(MessageType.EAGER, WireSender.protocolFor(THRESHOLD, THRESHOLD, WINDOW));
        assertEquals(MessageType.RTS, WireSender.protocolFor(THRESHOLD + 1, THRESHOLD, WINDOW));
        assertEquals(MessageType.RTS, WireSender.protocolFor(1L << 40, THRESHOLD, WINDOW));
    }

    @Test
    void shouldFallBackToRendezvousWhenTheWholeFrameExceedsTheCreditLeft()
    {
        final int frame = EnvelopeFlyweight.HEADER_LENGTH + 100;
        assertEquals(MessageType.EAGER, WireSender.protocolFor(100, THRESHOLD, frame));
        assertEquals(MessageType.RTS, WireSender.protocolFor(100, THRESHOLD, frame - 1));
        assertEquals(MessageType.RTS, WireSender.protocolFor(0, THRESHOLD, EnvelopeFlyweight.HEADER_LENGTH - 1));
        assertEquals(MessageType.RTS, WireSender.protocolFor(0, THRESHOLD, -5));
    }

    @Test
    void shouldNeverSendEagerlyWithAZeroThresholdExceptEmptyMessages()
    {
        assertEquals(MessageType.EAGER, WireSender.protocolFor(0, 0, WINDOW));
        assertEquals(MessageType.RTS, WireSender.protocolFor(1, 0, WINDOW));
    }
}
