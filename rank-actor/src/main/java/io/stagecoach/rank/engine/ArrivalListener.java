package io.stagecoach.rank.engine;

import io.stagecoach.rank.Status;

/**
 * Told of each message with a watched tag that arrives before a receive matches it (an unexpected message, held until
 * a receive takes it), and of those held when the watch starts.
 */
@FunctionalInterface
public interface ArrivalListener
{
    /**
     * The watch is in place: every matching message that arrives from now on is told. Runs before the arrivals of
     * the messages held when it started, on the same thread; must not block.
     */
    default void onWatchStarted()
    {
    }

    /**
     * Runs on the thread that drove the engine, once it released the engine; must not block.
     *
     * @param envelope the message's source, tag and packed bytes ({@link Status#count()} in bytes, as a probe's).
     */
    void onArrival(Status envelope);
}
