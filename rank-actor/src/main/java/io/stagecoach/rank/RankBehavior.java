package io.stagecoach.rank;

import java.time.Duration;

import io.stagecoach.pipeline.PackedHostBuffer;
import io.stagecoach.pipeline.StagingPath;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;

/**
 * The rank actor, guardian of the rank's actor system: it owns the lifecycle work of requests that leaves the
 * progress engine's hot path. It stages device messages above the eager threshold through host memory
 * (asynchronous device work whose completion comes back as a message, never a wait; smaller ones are staged on the
 * engine's thread, see {@link StagingRequests}), and turns peer-death reports of the rendezvous service into
 * engine commands. It is the seam for the pipelined stage actors of the next milestone, which it will spawn per
 * large device transfer.
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

    /**
     * Pack a device send buffer into host memory.
     *
     * @param send in state STAGING.
     */
    record StageOut(SendOperation send) implements Command
    {
    }

    /**
     * A device send buffer was packed into host memory, or failed to be.
     *
     * @param send    the send.
     * @param packed  its packed bytes, null on failure.
     * @param failure why it failed, or null.
     */
    record SendStaged(SendOperation send, PackedHostBuffer packed, Throwable failure) implements Command
    {
    }

    /**
     * Unpack a received message from host staging memory into its device buffer.
     *
     * @param receive with every byte in its staging memory.
     */
    record StageIn(ReceiveOperation receive) implements Command
    {
    }

    /**
     * A received message reached its device buffer, or failed to.
     *
     * @param receive the receive.
     * @param failure why it failed, or null.
     */
    record ReceiveStaged(ReceiveOperation receive, Throwable failure) implements Command
    {
    }

    private final ActorContext<Command> context;
    private final CommandSink engine;
    private final StagingPath staging;
    private final PeerProcesses processes;
    private final PeerLossListener launcher;

    private RankBehavior(
        final ActorContext<Command> context,
        final CommandSink engine,
        final StagingPath staging,
        final PeerProcesses processes,
        final PeerLossListener launcher)
    {
        this.context = context;
        this.engine = engine;
        this.staging = staging;
        this.processes = processes;
        this.launcher = launcher;
    }

    static Behavior<Command> create(final CommandSink engine, final StagingPath staging)
    {
        return create(engine, staging, null, PeerLossListener.NONE);
    }

    /**
     * @param processes same-node peers' processes to look at every {@link PeerProcesses#CHECK_INTERVAL_MS}, or null.
     * @param launcher  told of the peers this rank loses.
     */
    static Behavior<Command> create(
        final CommandSink engine,
        final StagingPath staging,
        final PeerProcesses processes,
        final PeerLossListener launcher)
    {
        return Behaviors.setup(context -> Behaviors.withTimers(timers ->
            new RankBehavior(context, engine, staging, processes, launcher).behavior(timers)));
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
            .onMessage(StageOut.class, this::onStageOut)
            .onMessage(SendStaged.class, this::onSendStaged)
            .onMessage(StageIn.class, this::onStageIn)
            .onMessage(ReceiveStaged.class, this::onReceiveStaged)
            .build();
    }

    private Behavior<Command> onPeerDied(final PeerDied message)
    {
        context.getLog().warn("rank {} learnt from the launcher that rank {} died: {}", engine.rank(),
            message.rank(), message.reason());
        engine.submit(locked -> locked.peerDied(message.rank(), message.reason()));
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

    private Behavior<Command> onStageOut(final StageOut message)
    {
        final SendOperation send = message.send();
        if (staging == null)
        {
            context.getSelf().tell(new SendStaged(send, null, new StagecoachException(
                "rank " + engine.rank() + " has no device runtime to stage " + send.buffer + ": " + send)));
            return Behaviors.same();
        }
        context.pipeToSelf(
            staging.packToHost(send.buffer.baseAddress(), send.buffer.device(), send.count, send.compiled,
                send.packedBytes),
            (packed, failure) -> new SendStaged(send, packed, failure));
        return Behaviors.same();
    }

    private Behavior<Command> onSendStaged(final SendStaged message)
    {
        engine.submit(locked -> locked.sendStaged(message.send(), message.packed(), message.failure()));
        return Behaviors.same();
    }

    private Behavior<Command> onStageIn(final StageIn message)
    {
        final ReceiveOperation receive = message.receive();
        context.pipeToSelf(
            staging.unpackToDevice(receive.staging, receive.receivedBytes, receive.buffer.baseAddress(),
                receive.buffer.device(), receive.count, receive.compiled),
            (ignored, failure) -> new ReceiveStaged(receive, failure));
        return Behaviors.same();
    }

    private Behavior<Command> onReceiveStaged(final ReceiveStaged message)
    {
        engine.submit(locked -> locked.receiveStaged(message.receive(), message.failure()));
        return Behaviors.same();
    }
}
