package io.stagecoach.rank.engine;

import java.util.ArrayList;

import io.stagecoach.rank.Communicator;
import io.stagecoach.rank.Status;

/**
 * The watches on unexpected messages: each message the unexpected queue takes in is told to every watch of its tag
 * (and context), after the engine's lock is released. Few watches are expected; with none, a message costs one check.
 */
final class ArrivalWatches
{
    private final ArrayList<Watch> watches = new ArrayList<>();
    private final Completions completions;

    ArrivalWatches(final Completions completions)
    {
        this.completions = completions;
    }

    /**
     * Starts a watch and tells it of the matching messages already held.
     */
    void add(final ArrivalListener listener, final int tag, final int contextId, final MatchQueues queues)
    {
        final Watch watch = new Watch(listener, tag, contextId);
        watches.add(watch);
        completions.afterRelease(listener::onWatchStarted);
        queues.forEachUnexpected(message -> tell(watch, message));
    }

    void remove(final ArrivalListener listener)
    {
        watches.removeIf(watch -> watch.listener == listener);
    }

    /**
     * @param message just taken into the unexpected queue.
     */
    void arrived(final UnexpectedMessage message)
    {
        for (int i = 0, size = watches.size(); i < size; i++)
        {
            tell(watches.get(i), message);
        }
    }

    private void tell(final Watch watch, final UnexpectedMessage message)
    {
        if ((watch.tag == Communicator.ANY_TAG || watch.tag == message.tag) && watch.contextId == message.contextId)
        {
            final Status envelope = new Status(message.source, message.tag, message.packedBytes, message.packedBytes,
                null);
            completions.afterRelease(() -> watch.listener.onArrival(envelope));
        }
    }

    private record Watch(ArrivalListener listener, int tag, int contextId)
    {
    }
}
