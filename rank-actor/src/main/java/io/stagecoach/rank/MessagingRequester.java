package io.stagecoach.rank;

import java.util.HashMap;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

import io.stagecoach.rank.engine.ArrivalListener;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * What the messaging actor keeps of one requester: its requests in flight, counted up by the actor as it posts them
 * and down by the engine's thread as each completes, just before the reply is told, so that a requester that waits
 * for a reply before asking again is never rejected; and its subscriptions, touched by the actor only.
 */
final class MessagingRequester
{
    private final ActorRef<MessagingBehavior.Reply> replyTo;
    private final int maxInFlight;
    private final AtomicInteger inFlight = new AtomicInteger();
    private HashMap<Long, Subscription> subscriptions;

    MessagingRequester(final ActorRef<MessagingBehavior.Reply> replyTo, final int maxInFlight)
    {
        this.replyTo = replyTo;
        this.maxInFlight = maxInFlight;
    }

    /**
     * Counts one more request in flight, unless the bound is reached (only the actor counts up, so the check holds).
     *
     * @return true when the request may go.
     */
    boolean tryStart()
    {
        if (inFlight.get() >= maxInFlight)
        {
            return false;
        }
        inFlight.incrementAndGet();
        return true;
    }

    int inFlight()
    {
        return inFlight.get();
    }

    CompletionListener sendListener(final long requestId)
    {
        return new Completion(requestId, false);
    }

    CompletionListener receiveListener(final long requestId)
    {
        return new Completion(requestId, true);
    }

    Consumer<Status> probeAnswer(final long requestId)
    {
        return found ->
        {
            inFlight.decrementAndGet();
            replyTo.tell(found != null && found.isError() ? MessagingBehavior.failure(requestId, found.error()) :
                new MessagingBehavior.Probed(requestId, Optional.ofNullable(found)));
        };
    }

    /**
     * A request that failed before it was posted: no longer in flight, and its requester told.
     */
    void failAtOnce(final long requestId, final Throwable error)
    {
        inFlight.decrementAndGet();
        replyTo.tell(MessagingBehavior.failure(requestId, error));
    }

    Subscription subscription(final long requestId)
    {
        return subscriptions == null ? null : subscriptions.get(requestId);
    }

    Subscription subscribe(final long requestId, final int tag)
    {
        if (subscriptions == null)
        {
            subscriptions = new HashMap<>();
        }
        final Subscription subscription = new Subscription(requestId, tag);
        subscriptions.put(requestId, subscription);
        return subscription;
    }

    /**
     * @return the subscription ended, told of no arrival from now on; null when there is none with this id.
     */
    Subscription unsubscribe(final long requestId)
    {
        final Subscription ended = subscriptions == null ? null : subscriptions.remove(requestId);
        if (ended != null)
        {
            ended.active = false;
        }
        return ended;
    }

    /**
     * Ends every subscription, handing each to {@code unwatch}.
     */
    void endSubscriptions(final Consumer<ArrivalListener> unwatch)
    {
        if (subscriptions != null)
        {
            for (final Subscription subscription : subscriptions.values())
            {
                subscription.active = false;
                unwatch.accept(subscription);
            }
            subscriptions.clear();
        }
    }

    /**
     * A subscription to arrivals: told by the engine's thread, it tells the subscriber while active, first that it
     * started, then of each arrival.
     */
    final class Subscription implements ArrivalListener
    {
        private final long requestId;
        private final int tag;
        private volatile boolean active = true;

        private Subscription(final long requestId, final int tag)
        {
            this.requestId = requestId;
            this.tag = tag;
        }

        public void onWatchStarted()
        {
            if (active)
            {
                replyTo.tell(new MessagingBehavior.Subscribed(requestId, tag));
            }
        }

        public void onArrival(final Status envelope)
        {
            if (active)
            {
                replyTo.tell(new MessagingBehavior.MessageArrived(requestId, envelope));
            }
        }
    }

    /**
     * The completion of a send or a receive, told by the engine's thread straight to the requester.
     */
    private final class Completion implements CompletionListener
    {
        private final long requestId;
        private final boolean receive;

        private Completion(final long requestId, final boolean receive)
        {
            this.requestId = requestId;
            this.receive = receive;
        }

        public void onComplete(final Status status)
        {
            inFlight.decrementAndGet();
            replyTo.tell(status.isError() ? MessagingBehavior.failure(requestId, status.error()) :
                receive ? new MessagingBehavior.Received(requestId, status) : new MessagingBehavior.Sent(requestId,
                status));
        }
    }
}
