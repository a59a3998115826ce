package io.stagecoach.rank;

import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Optional;

import io.stagecoach.device.Allocation;
import io.stagecoach.protocol.ErrorClass;
import io.stagecoach.protocol.datatype.Datatype;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * The messaging actor of a rank: sends, receives and probes of the rank's {@link Communicator} for applications
 * written with Pekko typed actors, each answered by a message to the requester instead of a request to wait on.
 * <p>
 * Every command carries a request id of the requester's choosing and the requester's address; every reply carries
 * the id back. A {@link Send} is answered by {@link Sent} once its buffer may be reused, a {@link Receive} by
 * {@link Received} once the data is in its buffer, a {@link Probe} by {@link Probed}; any of them by {@link Failed}
 * when it fails (a bad argument, naming the value and the limit; a peer that is lost, naming it; a truncated
 * message), or by {@link Rejected} when the requester already has {@code maxInFlight} requests in flight. Buffers are
 * host or device memory as the communicator takes them ({@link DataBuffer}); the requester must leave a buffer alone
 * until the reply. {@link SubscribeArrivals} tells the subscriber of every message with a tag that arrives before a
 * receive for it is posted.
 * <p>
 * The actor only posts: the rank's engine completes each request on its own thread and tells the reply straight to
 * the requester, without a hop through this actor. A small message in host memory is posted on this actor's thread
 * when the engine is free; anything else goes to the rank's progress thread, so nothing here ever waits.
 * <pre>{@code
 * ActorRef<MessagingBehavior.Command> messaging = context.spawn(MessagingBehavior.create(world), "messaging");
 * messaging.tell(new MessagingBehavior.Send(1, halo, 126, Datatype.FLOAT, right, 7, replies));
 * }</pre>
 */
public final class MessagingBehavior
{
    /** Requests in flight per requester unless {@link #create(Communicator, int)} says otherwise. */
    public static final int DEFAULT_MAX_IN_FLIGHT = 1024;
    /** The largest bound on requests in flight per requester that may be set. */
    public static final int MAX_IN_FLIGHT_LIMIT = 1 << 20;

    /**
     * What the messaging actor is told.
     */
    public sealed interface Command
    {
    }

    /**
     * Send a message (MPI_Isend): answered by {@link Sent} once the buffer may be reused.
     *
     * @param requestId   the requester's id for the request, carried by the reply.
     * @param buffer      where the data lies.
     * @param count       instances of {@code datatype}, >= 0.
     * @param datatype    a committed datatype.
     * @param destination rank in [0, size).
     * @param tag         >= 0.
     * @param replyTo     the requester.
     */
    public record Send(
        long requestId, DataBuffer buffer, long count, Datatype datatype, int destination, int tag,
        ActorRef<Reply> replyTo) implements Command
    {
        /**
         * Sends from a direct buffer of host memory.
         */
        public Send(
            final long requestId, final ByteBuffer buffer, final long count, final Datatype datatype,
            final int destination, final int tag, final ActorRef<Reply> replyTo)
        {
            this(requestId, DataBuffer.of(buffer), count, datatype, destination, tag, replyTo);
        }

        /**
         * Sends from memory of the device layer.
         */
        public Send(
            final long requestId, final Allocation buffer, final long count, final Datatype datatype,
            final int destination, final int tag, final ActorRef<Reply> replyTo)
        {
            this(requestId, DataBuffer.of(buffer), count, datatype, destination, tag, replyTo);
        }
    }

    /**
     * Receive a message (MPI_Irecv): answered by {@link Received} once the data is in the buffer.
     *
     * @param requestId the requester's id for the request, carried by the reply.
     * @param buffer    where the data goes.
     * @param count     instances of {@code datatype} the buffer holds, >= 0.
     * @param datatype  a committed datatype.
     * @param source    rank in [0, size) or {@link Communicator#ANY_SOURCE}.
     * @param tag       >= 0 or {@link Communicator#ANY_TAG}.
     * @param replyTo   the requester.
     */
    public record Receive(
        long requestId, DataBuffer buffer, long count, Datatype datatype, int source, int tag,
        ActorRef<Reply> replyTo) implements Command
    {
        /**
         * Receives into a direct buffer of host memory.
         */
        public Receive(
            final long requestId, final ByteBuffer buffer, final long count, final Datatype datatype,
            final int source, final int tag, final ActorRef<Reply> replyTo)
        {
            this(requestId, DataBuffer.of(buffer), count, datatype, source, tag, replyTo);
        }

        /**
         * Receives into memory of the device layer.
         */
        public Receive(
            final long requestId, final Allocation buffer, final long count, final Datatype datatype,
            final int source, final int tag, final ActorRef<Reply> replyTo)
        {
            this(requestId, DataBuffer.of(buffer), count, datatype, source, tag, replyTo);
        }
    }

    /**
     * Look for a message that has arrived and that no receive took yet (MPI_Iprobe): answered by {@link Probed}.
     *
     * @param requestId the requester's id for the request, carried by the reply.
     * @param source    rank in [0, size) or {@link Communicator#ANY_SOURCE}.
     * @param tag       >= 0 or {@link Communicator#ANY_TAG}.
     * @param replyTo   the requester.
     */
    public record Probe(long requestId, int source, int tag, ActorRef<Reply> replyTo) implements Command
    {
    }

    /**
     * Be told of every message with this tag that arrives before a receive for it is posted (an unexpected message),
     * and of those already waiting: answered by {@link Subscribed}, then a {@link MessageArrived} for each such
     * message, until {@link UnsubscribeArrivals} or the subscriber stops. A subscription is no request in flight.
     *
     * @param requestId the subscriber's id for the subscription, carried by each arrival.
     * @param tag       >= 0 or {@link Communicator#ANY_TAG}.
     * @param replyTo   the subscriber.
     */
    public record SubscribeArrivals(long requestId, int tag, ActorRef<Reply> replyTo) implements Command
    {
    }

    /**
     * End a subscription: answered by {@link Unsubscribed}. An arrival being told as this is handled may still come.
     *
     * @param requestId the id the subscription was made with.
     * @param replyTo   the subscriber.
     */
    public record UnsubscribeArrivals(long requestId, ActorRef<Reply> replyTo) implements Command
    {
    }

    /**
     * A requester stopped: its subscriptions end, and what it had in flight is forgotten once done.
     */
    private record RequesterStopped(ActorRef<Reply> requester) implements Command
    {
    }

    /**
     * What the messaging actor tells a requester.
     */
    public sealed interface Reply
    {
        /**
         * @return the id of the request (or subscription) this answers.
         */
        long requestId();
    }

    /**
     * A send completed: its buffer may be reused.
     *
     * @param requestId the send's id.
     * @param status    the destination, tag, and count sent.
     */
    public record Sent(long requestId, Status status) implements Reply
    {
    }

    /**
     * A receive completed: the data is in its buffer.
     *
     * @param requestId the receive's id.
     * @param status    the source, the tag and the count received (MPI_Get_count).
     */
    public record Received(long requestId, Status status) implements Reply
    {
    }

    /**
     * The answer to a probe.
     *
     * @param requestId the probe's id.
     * @param envelope  the source, tag and bytes ({@link Status#count()} in bytes) of the earliest matching message
     *                  that the rank holds, empty when it holds none.
     */
    public record Probed(long requestId, Optional<Status> envelope) implements Reply
    {
    }

    /**
     * A subscription is in place: every message with its tag that arrives from now on before a receive for it is
     * told; those waiting when it started follow this.
     *
     * @param requestId the subscription's id.
     * @param tag       the tag it watches.
     */
    public record Subscribed(long requestId, int tag) implements Reply
    {
    }

    /**
     * A message with a watched tag arrived before a receive for it was posted, or was waiting when the subscription
     * started; it waits until a receive takes it.
     *
     * @param requestId the subscription's id.
     * @param envelope  the message's source, tag and bytes ({@link Status#count()} in bytes).
     */
    public record MessageArrived(long requestId, Status envelope) implements Reply
    {
    }

    /**
     * A subscription ended.
     *
     * @param requestId the subscription's id.
     */
    public record Unsubscribed(long requestId) implements Reply
    {
    }

    /**
     * A request failed.
     *
     * @param requestId  the request's id.
     * @param error      why: an {@link InvalidArgumentException} naming the value and the limit, a
     *                   {@link PeerLostException} naming the peer, a truncation, ...
     * @param errorClass the MPI error class of the error ({@link Status#errorClass()}).
     */
    public record Failed(long requestId, Throwable error, ErrorClass errorClass) implements Reply
    {
    }

    /**
     * A request refused because its requester already had as many in flight as the bound allows; nothing was posted.
     * Ask again once a reply came.
     *
     * @param requestId   the request's id.
     * @param inFlight    the requester's requests in flight.
     * @param maxInFlight the bound per requester.
     * @param reason      the same, in words, naming the request.
     */
    public record Rejected(long requestId, int inFlight, int maxInFlight, String reason) implements Reply
    {
    }

    private final ActorContext<Command> context;
    private final Communicator communicator;
    private final int maxInFlight;
    private final HashMap<ActorRef<Reply>, MessagingRequester> requesters = new HashMap<>();

    private MessagingBehavior(
        final ActorContext<Command> context, final Communicator communicator, final int maxInFlight)
    {
        this.context = context;
        this.communicator = communicator;
        this.maxInFlight = maxInFlight;
    }

    /**
     * The messaging actor of a rank, with {@link #DEFAULT_MAX_IN_FLIGHT} requests in flight per requester.
     *
     * @param communicator the rank's communicator; the actor may run in any actor system of the process.
     * @return the behavior.
     */
    public static Behavior<Command> create(final Communicator communicator)
    {
        return create(communicator, DEFAULT_MAX_IN_FLIGHT);
    }

    /**
     * The messaging actor of a rank.
     *
     * @param communicator the rank's communicator; the actor may run in any actor system of the process.
     * @param maxInFlight  requests in flight per requester (sends, receives and probes not answered yet), in [1,
     *                     {@link #MAX_IN_FLIGHT_LIMIT}]; one more is {@link Rejected}.
     * @return the behavior.
     * @throws IllegalArgumentException naming the bound and its limits.
     */
    public static Behavior<Command> create(final Communicator communicator, final int maxInFlight)
    {
        if (maxInFlight < 1 || maxInFlight > MAX_IN_FLIGHT_LIMIT)
        {
            throw new InvalidArgumentException(ErrorClass.ARG, "maxInFlight " + maxInFlight + " is outside [1, " +
                MAX_IN_FLIGHT_LIMIT + "]");
        }
        if (communicator == null)
        {
            throw new InvalidArgumentException(ErrorClass.COMM, "communicator is null");
        }
        return Behaviors.setup(context -> new MessagingBehavior(context, communicator, maxInFlight).behavior());
    }

    private Behavior<Command> behavior()
    {
        return Behaviors.receive(Command.class)
            .onMessage(Send.class, this::onSend)
            .onMessage(Receive.class, this::onReceive)
            .onMessage(Probe.class, this::onProbe)
            .onMessage(SubscribeArrivals.class, this::onSubscribe)
            .onMessage(UnsubscribeArrivals.class, this::onUnsubscribe)
            .onMessage(RequesterStopped.class, this::onRequesterStopped)
            .onSignal(PostStop.class, signal -> onStop())
            .build();
    }

    private Behavior<Command> onSend(final Send send)
    {
        final MessagingRequester requester = admit(send.requestId(), send.replyTo(), send);
        if (requester != null)
        {
            communicator.isend(send.buffer(), send.count(), send.datatype(), send.destination(), send.tag(),
                requester.sendListener(send.requestId()));
        }
        return Behaviors.same();
    }

    private Behavior<Command> onReceive(final Receive receive)
    {
        final MessagingRequester requester = admit(receive.requestId(), receive.replyTo(), receive);
        if (requester != null)
        {
            communicator.irecv(receive.buffer(), receive.count(), receive.datatype(), receive.source(),
                receive.tag(), requester.receiveListener(receive.requestId()));
        }
        return Behaviors.same();
    }

    private Behavior<Command> onProbe(final Probe probe)
    {
        final MessagingRequester requester = admit(probe.requestId(), probe.replyTo(), probe);
        if (requester != null)
        {
            try
            {
                communicator.iprobe(probe.source(), probe.tag(), requester.probeAnswer(probe.requestId()));
            }
            catch (final RuntimeException ex)
            {
                requester.failAtOnce(probe.requestId(), ex);
            }
        }
        return Behaviors.same();
    }

    private Behavior<Command> onSubscribe(final SubscribeArrivals subscribe)
    {
        final MessagingRequester requester = requester(subscribe.replyTo());
        if (requester == null)
        {
            return Behaviors.same();
        }
        if (requester.subscription(subscribe.requestId()) != null)
        {
            subscribe.replyTo().tell(failure(subscribe.requestId(), new InvalidArgumentException(ErrorClass.REQUEST,
                "subscription " + subscribe.requestId() + " of " + subscribe.replyTo() + " exists already")));
            return Behaviors.same();
        }
        try
        {
            communicator.watchArrivals(subscribe.tag(), requester.subscribe(subscribe.requestId(), subscribe.tag()));
        }
        catch (final RuntimeException ex)
        {
            requester.unsubscribe(subscribe.requestId());
            subscribe.replyTo().tell(failure(subscribe.requestId(), ex));
        }
        return Behaviors.same();
    }

    private Behavior<Command> onUnsubscribe(final UnsubscribeArrivals unsubscribe)
    {
        final MessagingRequester requester = requester(unsubscribe.replyTo());
        if (requester != null)
        {
            final MessagingRequester.Subscription ended = requester.unsubscribe(unsubscribe.requestId());
            if (ended == null)
            {
                unsubscribe.replyTo().tell(failure(unsubscribe.requestId(), new InvalidArgumentException(
                    ErrorClass.REQUEST, "no subscription " + unsubscribe.requestId() + " of " +
                    unsubscribe.replyTo() + " to end")));
                return Behaviors.same();
            }
            communicator.unwatchArrivals(ended);
            unsubscribe.replyTo().tell(new Unsubscribed(unsubscribe.requestId()));
        }
        return Behaviors.same();
    }

    private Behavior<Command> onRequesterStopped(final RequesterStopped stopped)
    {
        final MessagingRequester requester = requesters.remove(stopped.requester());
        if (requester != null)
        {
            requester.endSubscriptions(communicator::unwatchArrivals);
        }
        return Behaviors.same();
    }

    private Behavior<Command> onStop()
    {
        for (final MessagingRequester requester : requesters.values())
        {
            requester.endSubscriptions(communicator::unwatchArrivals);
        }
        requesters.clear();
        return Behaviors.same();
    }

    /**
     * @return the requester, with one more request in flight; null when it is rejected (and told so).
     */
    private MessagingRequester admit(final long requestId, final ActorRef<Reply> replyTo, final Command request)
    {
        final MessagingRequester requester = requester(replyTo);
        if (requester == null || requester.tryStart())
        {
            return requester;
        }
        final int inFlight = requester.inFlight();
        final String reason = replyTo + " has " + inFlight + " requests in flight, the bound per requester is " +
            maxInFlight + " (maxInFlight): " + describe(request) + " rejected";
        context.getLog().debug("rank {}: {}", communicator.rank(), reason);
        replyTo.tell(new Rejected(requestId, inFlight, maxInFlight, reason));
        return null;
    }

    /**
     * @return the requester of this address, watched from its first request on; null for no address (logged).
     */
    private MessagingRequester requester(final ActorRef<Reply> replyTo)
    {
        if (replyTo == null)
        {
            context.getLog().warn("rank {}: a command without replyTo cannot be answered; dropped",
                communicator.rank());
            return null;
        }
        MessagingRequester requester = requesters.get(replyTo);
        if (requester == null)
        {
            requester = new MessagingRequester(replyTo, maxInFlight);
            requesters.put(replyTo, requester);
            context.watchWith(replyTo, new RequesterStopped(replyTo));
        }
        return requester;
    }

    static Failed failure(final long requestId, final Throwable error)
    {
        return new Failed(requestId, error, Status.failed(0, 0, error).errorClass());
    }

    private static String describe(final Command request)
    {
        if (request instanceof Send send)
        {
            return "send(dest=" + send.destination() + ", tag=" + send.tag() + ", id=" + send.requestId() + ")";
        }
        if (request instanceof Receive receive)
        {
            return "receive(source=" + Request.peerName(receive.source()) + ", tag=" + Request.tagName(receive.tag()) +
                ", id=" + receive.requestId() + ")";
        }
        final Probe probe = (Probe)request;
        return "probe(source=" + Request.peerName(probe.source()) + ", tag=" + Request.tagName(probe.tag()) + ", id=" +
            probe.requestId() + ")";
    }
}
