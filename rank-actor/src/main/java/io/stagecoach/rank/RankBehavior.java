package io.stagecoach.rank;

import java.time.Duration;

import io.stagecoach.rank.engine.CommandSink;
import io.stagecoach.rank.engine.PeerLossListener;
import io.stagecoach.rank.engine.PeerProcesses;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;

/**
 * The rank actor, guardian of the rank's actor system: it owns the lifecycle work that leaves the progress engine's
 * hot path: it turns peer-death reports of the rendezvous service into engine commands, looks at the processes of
 * same-node peers, and tells the launcher of the peers this rank lost. Large device transfers run in actors of their
 * own, beside it ({@link io.stagecoach.pipeline.stage.StagePipeline}). It only ever enqueues engine commands.
 */
final class RankBehavior
{
    /**
     * What the rank actor is told.
     */
    sealed interface Command
    {
    }

    /**
     * The rendezvous service reports a peer's process dead.
     *
     * @param rank   the dead rank.
     * @param reason what the launcher saw.
     */
    record PeerDied(int rank, String reason) implements Command
    {
    }

    /**
     * The engine lost a peer: tell the launcher, which names the rank a failure started from.
     *
     * @param rank   the peer lost.
     * @param reason why.
     */
    record PeerLost(int rank, String reason) implements Command
    {
    }

    /**
     * Look at the processes of same-node peers: its own timer's tick.
     */
    enum CheckPeerProcesses implements Command
    {
        INSTANCE
    }

    private final ActorContext<Command> context;
    private final CommandSink engine;
    private final PeerProcesses processes;
    private final PeerLossListener launcher;

    private RankBehavior(
        final ActorContext<Command> context,
        final CommandSink engine,
        final PeerProcesses processes,
        final PeerLossListener launcher)
    {
        this.context = context;
        this.engine = engine;
        this.processes = processes;
        this.launcher = launcher;
    }

    static Behavior<Command> create(final CommandSink engine)
    {
        return create(engine, null, PeerLossListener.NONE);
    }

    /**
     * @param processes same-node peers' processes to look at every {@link PeerProcesses#CHECK_INTERVAL_MS}, or null.
     * @param launcher  told of the peers this rank loses.
     */
    static Behavior<Command> create(
        final CommandSink engine,
        final PeerProcesses processes,
        final PeerLossListener launcher)
    {
        return Behaviors.setup(context -> Behaviors.withTimers(timers ->
            new RankBehavior(context, engine, processes, launcher).behavior(timers)));
    }

    private Behavior<Command> behavior(final TimerScheduler<Command> timers)
    {
        if (processes != null)
        {
            timers.startTimerWithFixedDelay(CheckPeerProcesses.INSTANCE,
                Duration.ofMillis(PeerProcesses.CHECK_INTERVAL_MS));
        }
        return Behaviors.receive(Command.class)
            .onMessageEquals(CheckPeerProcesses.INSTANCE, this::onCheckPeerProcesses)
            .onMessage(PeerDied.class, this::onPeerDied)
            .onMessage(PeerLost.class, this::onPeerLost)
            .build();
    }

    private Behavior<Command> onPeerDied(final PeerDied message)
    {
        context.getLog().warn("rank {} learnt from the launcher that rank {} died: {}", engine.rank(),
            message.rank(), message.reason());
        engine.enqueue(locked -> locked.peerDied(message.rank(), message.reason()));
        return Behaviors.same();
    }

    private Behavior<Command> onPeerLost(final PeerLost message)
    {
        launcher.onPeerLost(message.rank(), message.reason());
        return Behaviors.same();
    }

    private Behavior<Command> onCheckPeerProcesses()
    {
        processes.check(engine);
        return Behaviors.same();
    }
}
