package io.stagecoach.rank.engine;

import java.util.ArrayList;
import java.util.List;

import io.stagecoach.pipeline.trace.StageTracer;
import io.stagecoach.protocol.wire.MessageType;
import io.stagecoach.rank.Status;
import org.junit.jupiter.api.Test;

import static io.stagecoach.rank.Communicator.ANY_TAG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The watches on unexpected messages: told after the lock's release (through the completions' notices), by tag and
 * context, first that the watch started and then of the messages held, and nothing once removed.
 */
class ArrivalWatchesTest
{
    private final Completions completions = new Completions(StageTracer.OFF);
    private final ArrivalWatches watches = new ArrivalWatches(completions);
    private final MatchQueues queues = new MatchQueues(watches);
    private final List<String> told = new ArrayList<>();

    @Test
    void shouldTellAWatchOfItsTagAndContextOnlyOnceTheLockIsReleased()
    {
        final ArrivalListener seven = listener("seven");
        watches.add(seven, 7, 0, queues);
        queues.addUnexpected(unexpected(1, 7, 0, 24));
        queues.addUnexpected(unexpected(2, 8, 0, 16));
        queues.addUnexpected(unexpected(3, 7, 5, 8));

        assertTrue(told.isEmpty(), "nothing runs under the lock: " + told);
        runNotices();
        assertEquals(List.of("seven started", "seven 1/7 24 bytes"), told);
    }

    @Test
    void shouldTellANewWatchThatItStartedThenOfTheMessagesHeld()
    {
        queues.addUnexpected(unexpected(1, 3, 0, 4));
        queues.addUnexpected(unexpected(2, 4, 0, 8));
        assertNull(completions.takeNotices(), "no watch, no notice");

        watches.add(listener("any"), ANY_TAG, 0, queues);
        runNotices();

        assertEquals(List.of("any started", "any 1/3 4 bytes", "any 2/4 8 bytes"), told);
    }

    @Test
    void shouldTellNothingOnceRemoved()
    {
        final ArrivalListener removed = listener("removed");
        watches.add(removed, 9, 0, queues);
        watches.add(listener("kept"), 9, 0, queues);
        runNotices();
        told.clear();

        watches.remove(removed);
        queues.addUnexpected(unexpected(1, 9, 0, 1));
        runNotices();

        assertEquals(List.of("kept 1/9 1 bytes"), told);
    }

    private ArrivalListener listener(final String name)
    {
        return new ArrivalListener()
        {
            public void onWatchStarted()
            {
                told.add(name + " started");
            }

            public void onArrival(final Status envelope)
            {
                told.add(name + " " + envelope.source() + "/" + envelope.tag() + " " + envelope.count() + " bytes");
            }
        };
    }

    private void runNotices()
    {
        final Runnable[] notices = completions.takeNotices();
        if (notices != null)
        {
            for (final Runnable notice : notices)
            {
                notice.run();
            }
        }
    }

    private static UnexpectedMessage unexpected(final int source, final int tag, final int contextId, final int bytes)
    {
        return new UnexpectedMessage(MessageType.EAGER, source, tag, contextId, false, 0, bytes, 0, 0, bytes,
            new byte[bytes], 0);
    }
}
