package io.stagecoach.benchmarks.omb;

import java.util.concurrent.CompletableFuture;

import io.stagecoach.protocol.datatype.Datatype;
import io.stagecoach.rank.Communicator;
import io.stagecoach.rank.DataBuffer;
import io.stagecoach.rank.MessagingBehavior;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * One rank's side of the ping-pong of {@link ActorLatency}, written as an application would write it: an actor that
 * asks its rank's {@link MessagingBehavior} for each send and receive and acts on the replies. Rank 0 posts a receive
 * and a send, and on each {@link MessagingBehavior.Received} the next pair; the other rank posts a receive, and on
 * each one received the next receive and the reply. A run ends once every round trip is received and every send
 * completed; its time runs from the end of the untimed round trips to the last receive.
 */
final class PingPongBehavior
{
    /**
     * What the ping-pong actor is told.
     */
    sealed interface Command
    {
    }

    /**
     * Run the ping-pong once.
     *
     * @param sizeBytes  message size.
     * @param iterations timed round trips.
     * @param skip       untimed round trips before them.
     * @param out        the region sent from.
     * @param in         the region received into.
     * @param roundTrips the record of the timed round trips.
     * @param elapsedNs  completed with the time of the timed round trips, or with the reply that failed.
     */
    record Run(
        long sizeBytes, long iterations, long skip, BufferRegion out, BufferRegion in, RoundTrips roundTrips,
        CompletableFuture<Long> elapsedNs) implements Command
    {
    }

    private record Replied(MessagingBehavior.Reply reply) implements Command
    {
    }

    private static final int TAG = 2;

    private final ActorRef<MessagingBehavior.Command> messaging;
    private final ActorRef<MessagingBehavior.Reply> replies;
    private final int peer;
    private final boolean root;
    private Run run;
    private DataBuffer out;
    private DataBuffer in;
    private long received;
    private long sendsInFlight;
    private long startNs;
    private long endNs;
    private long nextRequestId;

    private PingPongBehavior(final ActorContext<Command> context, final Communicator communicator)
    {
        this.messaging = context.spawn(MessagingBehavior.create(communicator), "messaging");
        this.replies = context.messageAdapter(MessagingBehavior.Reply.class, Replied::new);
        this.peer = 1 - communicator.rank();
        this.root = communicator.rank() == 0;
    }

    /**
     * @param communicator a rank of a job of two.
     * @return the ping-pong actor, with the rank's messaging actor as its child.
     */
    static Behavior<Command> create(final Communicator communicator)
    {
        return Behaviors.setup(context -> new PingPongBehavior(context, communicator).behavior());
    }

    private Behavior<Command> behavior()
    {
        return Behaviors.receive(Command.class)
            .onMessage(Run.class, this::onRun)
            .onMessage(Replied.class, this::onReplied)
            .build();
    }

    private Behavior<Command> onRun(final Run started)
    {
        run = started;
        out = started.out().data();
        in = started.in().data();
        received = 0;
        sendsInFlight = 0;
        startNs = System.nanoTime();
        if (started.skip() == 0)
        {
            started.roundTrips().start(startNs);
        }
        receive();
        if (root)
        {
            send();
        }
        return Behaviors.same();
    }

    private Behavior<Command> onReplied(final Replied replied)
    {
        final MessagingBehavior.Reply reply = replied.reply();
        if (reply instanceof MessagingBehavior.Received)
        {
            onReceived();
        }
        else if (reply instanceof MessagingBehavior.Sent)
        {
            sendsInFlight--;
            finishWhenDone();
        }
        else
        {
            run.elapsedNs().completeExceptionally(new IllegalStateException(ActorLatency.PROGRAM + ": " + reply));
        }
        return Behaviors.same();
    }

    private void onReceived()
    {
        final long total = run.skip() + run.iterations();
        received++;
        if (received == run.skip())
        {
            startNs = System.nanoTime();
            run.roundTrips().start(startNs);
        }
        else if (received > run.skip())
        {
            run.roundTrips().ended();
        }
        if (received == total)
        {
            endNs = System.nanoTime();
        }
        if (received < total)
        {
            receive();
        }
        if (received < total || !root)
        {
            send();
        }
        finishWhenDone();
    }

    private void receive()
    {
        messaging.tell(new MessagingBehavior.Receive(++nextRequestId, in, run.sizeBytes(), Datatype.BYTE,
            peer, TAG, replies));
    }

    private void send()
    {
        sendsInFlight++;
        messaging.tell(new MessagingBehavior.Send(++nextRequestId, out, run.sizeBytes(), Datatype.BYTE,
            peer, TAG, replies));
    }

    private void finishWhenDone()
    {
        if (received == run.skip() + run.iterations() && sendsInFlight == 0)
        {
            run.elapsedNs().complete(endNs - startNs);
        }
    }
}
