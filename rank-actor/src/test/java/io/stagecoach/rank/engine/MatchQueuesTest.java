package io.stagecoach.rank.engine;

import io.stagecoach.device.MemoryRegion;
import io.stagecoach.protocol.datatype.Datatype;
import io.stagecoach.protocol.wire.MessageType;
import io.stagecoach.rank.RankInternals;
import io.stagecoach.rank.Request;
import io.stagecoach.rank.memory.MessageBuffer;
import org.junit.jupiter.api.Test;

import static io.stagecoach.rank.Communicator.ANY_SOURCE;
import static io.stagecoach.rank.Communicator.ANY_TAG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

class MatchQueuesTest
{
    private final MatchQueues queues = new MatchQueues();

    @Test
    void shouldGiveAnArrivingMessageTheEarliestMatchingPostedReceive()
    {
        final ReceiveOperation anyAny = receive(ANY_SOURCE, ANY_TAG);
        final ReceiveOperation oneSeven = receive(1, 7);
        final ReceiveOperation anySeven = receive(ANY_SOURCE, 7);
        queues.post(oneSeven);
        queues.post(anyAny);
        queues.post(anySeven);

        assertSame(oneSeven, queues.takePosted(1, 7, 0));
        assertSame(anyAny, queues.takePosted(2, 7, 0));
        assertSame(anySeven, queues.takePosted(3, 7, 0));
        assertNull(queues.takePosted(3, 7, 0));
        assertEquals(0, queues.postedCount());
    }

    @Test
    void shouldSkipReceivesOfOtherSourcesTagsAndContexts()
    {
        final ReceiveOperation twoFive = receive(2, 5);
        final ReceiveOperation otherContext = new ReceiveOperation(request(), 1, 5, 9, buffer(), 1,
            Datatype.INT.commit().compiled(), new SignatureCache().lookup(Datatype.INT, 1));
        final ReceiveOperation oneAny = receive(1, ANY_TAG);
        queues.post(twoFive);
        queues.post(otherContext);
        queues.post(oneAny);

        assertSame(oneAny, queues.takePosted(1, 5, 0));
        assertNull(queues.takePosted(1, 6, 0));
        assertSame(otherContext, queues.takePosted(1, 5, 9));
        assertSame(twoFive, queues.takePosted(2, 5, 0));
    }

    @Test
    void shouldMatchUnexpectedMessagesInArrivalOrder()
    {
        final UnexpectedMessage first = unexpected(1, 3);
        final UnexpectedMessage second = unexpected(2, 3);
        final UnexpectedMessage third = unexpected(1, 4);
        final UnexpectedMessage fourth = unexpected(1, 3);
        queues.addUnexpected(first);
        queues.addUnexpected(second);
        queues.addUnexpected(third);
        queues.addUnexpected(fourth);

        assertSame(third, queues.findUnexpected(1, 4, 0, false));
        assertSame(first, queues.findUnexpected(1, ANY_TAG, 0, true));
        assertSame(second, queues.findUnexpected(ANY_SOURCE, 3, 0, true));
        assertSame(fourth, queues.findUnexpected(1, 3, 0, true));
        assertSame(third, queues.findUnexpected(ANY_SOURCE, ANY_TAG, 0, true));
        assertNull(queues.findUnexpected(ANY_SOURCE, ANY_TAG, 0, true));
        assertEquals(0, queues.unexpectedCount());
        assertEquals(0, queues.unexpectedBytes());
    }

    @Test
    void shouldRemovePostedReceivesFromTheMiddleAndDrainByFilter()
    {
        final ReceiveOperation a = receive(1, 1);
        final ReceiveOperation b = receive(2, 1);
        final ReceiveOperation c = receive(1, 2);
        final ReceiveOperation d = receive(ANY_SOURCE, 1);
        queues.post(a);
        queues.post(b);
        queues.post(c);
        queues.post(d);
        queues.removePosted(b);

        final StringBuilder drained = new StringBuilder();
        queues.drainPosted(receive -> receive.source == 1, receive -> drained.append(receive.tag));
        assertEquals("12", drained.toString());
        assertEquals(1, queues.postedCount());
        assertSame(d, queues.takePosted(2, 1, 0));
    }

    @Test
    void shouldCountUnexpectedPayloadBytes()
    {
        queues.addUnexpected(new UnexpectedMessage(MessageType.EAGER, 0, 0, 0, false, 1, 100, 0, 0, 0,
            new byte[100], 172));
        queues.addUnexpected(unexpected(0, 1));
        assertEquals(100, queues.unexpectedBytes());
        queues.pollUnexpected();
        assertEquals(0, queues.unexpectedBytes());
    }

    private static ReceiveOperation receive(final int source, final int tag)
    {
        return new ReceiveOperation(request(), source, tag, 0, buffer(), 1, Datatype.INT.commit().compiled(),
            new SignatureCache().lookup(Datatype.INT, 1));
    }

    private static Request request()
    {
        return RankInternals.request(null, "irecv", 0, 0, 1, Datatype.INT);
    }

    private static MessageBuffer buffer()
    {
        return new MessageBuffer(4096, 4096, 4, MemoryRegion.PAGEABLE_HOST, null);
    }

    private static UnexpectedMessage unexpected(final int source, final int tag)
    {
        return new UnexpectedMessage(MessageType.RTS, source, tag, 0, false, 1, 1 << 20, 0, 0, 0, null, 0);
    }
}
