package io.stagecoach.examples.actor;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.concurrent.TimeUnit;

import io.stagecoach.protocol.datatype.Datatype;
import io.stagecoach.rank.Communicator;
import io.stagecoach.rank.MessagingBehavior;
import io.stagecoach.rank.MessagingBehavior.Failed;
import io.stagecoach.rank.MessagingBehavior.Received;
import io.stagecoach.rank.MessagingBehavior.Reply;
import io.stagecoach.rank.MessagingBehavior.Sent;
import io.stagecoach.rank.Stagecoach;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * Every rank learns the sum of all ranks by passing tokens around a ring, written with actors: each rank's guardian
 * asks its rank's {@link MessagingBehavior} to receive a token from the left and to send one to the right, and moves
 * to the next round once both replies came; after {@code size - 1} rounds it prints the sum and stops.
 * <pre>
 * stagecoach run -n 4 --oversubscribe -cp examples/target/stagecoach-examples-0.1.0-SNAPSHOT.jar \
 *     io.stagecoach.examples.actor.RingSum
 * </pre>
 */
public final class RingSum
{
    /**
     * What the ring actor is told: only the messaging actor's replies.
     */
    sealed interface Command
    {
    }

    private record Replied(Reply reply) implements Command
    {
    }

    private final ActorContext<Command> context;
    private final Communicator world;
    private final ActorRef<MessagingBehavior.Command> messaging;
    private final ActorRef<Reply> replies;
    private final ByteBuffer outgoing = ByteBuffer.allocateDirect(Long.BYTES).order(ByteOrder.nativeOrder());
    private final ByteBuffer incoming = ByteBuffer.allocateDirect(Long.BYTES).order(ByteOrder.nativeOrder());
    private int round;
    private long sum;
    private boolean sent;
    private boolean received;

    private RingSum(final ActorContext<Command> context, final Communicator world)
    {
        this.context = context;
        this.world = world;
        this.messaging = context.spawn(MessagingBehavior.create(world), "messaging");
        this.replies = context.messageAdapter(Reply.class, Replied::new);
        this.sum = world.rank();
        outgoing.putLong(0, world.rank());
    }

    /**
     * Joins the job, runs the ring in an actor system until its guardian stops, and leaves.
     *
     * @param args none.
     * @throws Exception when the ring does not end within a minute.
     */
    public static void main(final String[] args) throws Exception
    {
        try (Communicator world = Stagecoach.init())
        {
            final ActorSystem<Command> system = ActorSystem.create(create(world), "ring-" + world.rank());
            system.getWhenTerminated().toCompletableFuture().get(60, TimeUnit.SECONDS);
        }
    }

    static Behavior<Command> create(final Communicator world)
    {
        return Behaviors.setup(context -> new RingSum(context, world).start());
    }

    private Behavior<Command> start()
    {
        if (world.size() == 1)
        {
            return finish();
        }
        postRound();
        return Behaviors.receive(Command.class).onMessage(Replied.class, this::onReplied).build();
    }

    private void postRound()
    {
        final int left = (world.rank() + world.size() - 1) % world.size();
        final int right = (world.rank() + 1) % world.size();
        sent = false;
        received = false;
        messaging.tell(new MessagingBehavior.Receive(2L * round, incoming, 1, Datatype.LONG, left, round, replies));
        messaging.tell(new MessagingBehavior.Send(2L * round + 1, outgoing, 1, Datatype.LONG, right, round, replies));
    }

    private Behavior<Command> onReplied(final Replied replied)
    {
        final Reply reply = replied.reply();
        if (reply instanceof Received)
        {
            received = true;
            sum += incoming.getLong(0);
        }
        else if (reply instanceof Sent)
        {
            sent = true;
        }
        else
        {
            final String why = reply instanceof Failed failed ? failed.error().getMessage() : reply.toString();
            context.getLog().error("rank {}: round {} failed: {}", world.rank(), round, why);
            return Behaviors.stopped();
        }
        return sent && received ? nextRound() : Behaviors.same();
    }

    private Behavior<Command> nextRound()
    {
        if (++round == world.size() - 1)
        {
            return finish();
        }
        outgoing.putLong(0, incoming.getLong(0));
        postRound();
        return Behaviors.same();
    }

    private Behavior<Command> finish()
    {
        System.out.println("rank " + world.rank() + ": the ranks sum to " + sum);
        return Behaviors.stopped();
    }
}
