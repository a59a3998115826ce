package io.stagecoach.node.jobs;

import java.io.IOException;
import java.net.InetAddress;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.stagecoach.node.agent.ControlStream;
import io.stagecoach.node.launch.RendezvousServer;
import org.apache.pekko.actor.Address;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.apache.pekko.cluster.ClusterEvent;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.cluster.typed.Subscribe;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one job across nodes from the agent it was submitted to: the job's rendezvous service on this agent's address,
 * one part per node started by that node's agent, their output and exit statuses to the submitter, and the failure
 * path. A rank that fails is reported to every rank at once ({@code DEAD}) and the other nodes' ranks are ended a
 * second later; a node that becomes unreachable or is removed from the cluster fails its ranks at once, naming the
 * node, and ends the job the same way. The submitter reads the lines {@code j JOB}, {@code o LINE} (standard output),
 * {@code e LINE} (standard error) and, last, {@code x STATUS}; a submitter that goes away ends the job.
 */
final class JobCoordinator
{
    /** How long after a rank's failure the other nodes' ranks are ended. */
    static final Duration DEATH_GRACE = Duration.ofSeconds(1);

    private static final Logger LOG = LoggerFactory.getLogger(JobCoordinator.class);

    private final ActorContext<Command> context;
    private final TimerScheduler<Command> timers;
    private final String jobId;
    private final ControlStream client;
    private final RendezvousServer rendezvous;
    private final ActorRef<JobTraceMerge.Command> trace;
    private final Map<String, NodeOfJob> nodes = new LinkedHashMap<>();
    private final Map<String, Integer> ended = new HashMap<>();
    private String failure;
    private boolean ending;

    private JobCoordinator(final ActorContext<Command> context, final TimerScheduler<Command> timers,
        final String jobId, final ControlStream client, final RendezvousServer rendezvous, final List<NodeOfJob> nodes,
        final ActorRef<JobTraceMerge.Command> trace)
    {
        this.context = context;
        this.timers = timers;
        this.jobId = jobId;
        this.client = client;
        this.rendezvous = rendezvous;
        this.trace = trace;
        nodes.forEach(node -> this.nodes.put(node.name(), node));
    }

    /**
     * @param jobId   the job's id.
     * @param request the job.
     * @param nodes   the nodes that run its ranks.
     * @param bind    the address this agent is reached at, where the rendezvous service listens.
     * @param client  the submitter.
     * @param trace   where the parts send their live trace, or null for nowhere.
     * @return the behavior, which stops once every node's part has ended.
     */
    static Behavior<Command> create(final String jobId, final JobRequest request, final List<NodeOfJob> nodes,
        final InetAddress bind, final ControlStream client, final ActorRef<JobTraceMerge.Command> trace)
    {
        return Behaviors.setup(context -> Behaviors.withTimers(timers ->
        {
            final RendezvousServer rendezvous;
            try
            {
                rendezvous = RendezvousServer.start(jobId, request.size(), bind);
            }
            catch (final IOException ex)
            {
                client.send("e stagecoach: could not start the rendezvous service of job " + jobId + " on " + bind +
                    ": " + ex.getMessage());
                client.send("x 1");
                client.close();
                if (null != trace)
                {
                    trace.tell(JobTraceMerge.JobEnded.INSTANCE);
                }
                return Behaviors.stopped();
            }
            final JobCoordinator coordinator =
                new JobCoordinator(context, timers, jobId, client, rendezvous, nodes, trace);
            coordinator.start(request);
            return coordinator.behavior();
        }));
    }

    private void start(final JobRequest request)
    {
        client.send("j " + jobId);
        client.onClientGone(() -> context.getSelf().tell(new End("the submitter of job " + jobId + " went away")));
        final ActorRef<ClusterEvent.ReachabilityEvent> reachability =
            context.messageAdapter(ClusterEvent.ReachabilityEvent.class, Reachability::new);
        final ActorRef<ClusterEvent.MemberRemoved> removals =
            context.messageAdapter(ClusterEvent.MemberRemoved.class, Removed::new);
        final Cluster cluster = Cluster.get(context.getSystem());
        cluster.subscriptions().tell(Subscribe.create(reachability, ClusterEvent.ReachabilityEvent.class));
        cluster.subscriptions().tell(Subscribe.create(removals, ClusterEvent.MemberRemoved.class));
        for (final NodeOfJob node : nodes.values())
        {
            node.agent().tell(new JobsBehavior.StartPart(jobId, context.getSelf(), request, node.ranks(),
                rendezvous.rendezvousAddress(), rendezvous.secretText(), trace));
        }
        LOG.info("job {}: {} ranks of {} on {}", jobId, request.size(), request.program(), nodes.keySet());
    }

    private Behavior<Command> behavior()
    {
        return Behaviors.receive(Command.class)
            .onMessage(PartOutput.class, this::onOutput)
            .onMessage(PartRankExited.class, this::onRankExited)
            .onMessage(PartEnded.class, this::onPartEnded)
            .onMessage(Reachability.class, this::onReachability)
            .onMessage(Removed.class, this::onRemoved)
            .onMessage(End.class, this::onEnd)
            .onMessage(EndNow.class, this::onEndNow)
            .onSignal(PostStop.class, signal -> onStop())
            .build();
    }

    private Behavior<Command> onOutput(final PartOutput output)
    {
        client.send((output.error() ? "e " : "o ") + output.line());
        return Behaviors.same();
    }

    private Behavior<Command> onRankExited(final PartRankExited exited)
    {
        rendezvous.rankExited(exited.rank(), exited.status(), exited.description());
        if (exited.status() != 0 && null == failure)
        {
            failure = "rank " + exited.rank() + " on node " + exited.node() + " failed: " + exited.description();
            timers.startSingleTimer(new EndNow(failure), DEATH_GRACE);
        }
        return Behaviors.same();
    }

    private Behavior<Command> onPartEnded(final PartEnded partEnded)
    {
        if (!nodes.containsKey(partEnded.node()) || ended.containsKey(partEnded.node()))
        {
            return Behaviors.same();
        }
        ended.put(partEnded.node(), partEnded.status());
        if (!partEnded.message().isEmpty())
        {
            client.send("e stagecoach: node " + partEnded.node() + ": " + partEnded.message());
        }
        if (partEnded.status() != 0 && null == failure)
        {
            failure = "the ranks of node " + partEnded.node() + " ended with exit status " + partEnded.status();
            endParts(failure);
        }
        return ended.size() == nodes.size() ? finish() : Behaviors.same();
    }

    private Behavior<Command> onReachability(final Reachability event)
    {
        if (event.event() instanceof ClusterEvent.UnreachableMember unreachable)
        {
            lose(unreachable.member().address(), "became unreachable");
        }
        return ended.size() == nodes.size() ? finish() : Behaviors.same();
    }

    private Behavior<Command> onRemoved(final Removed event)
    {
        lose(event.event().member().address(), "was removed from the cluster");
        return ended.size() == nodes.size() ? finish() : Behaviors.same();
    }

    private void lose(final Address address, final String what)
    {
        for (final NodeOfJob node : nodes.values())
        {
            if (node.address().equals(address) && !ended.containsKey(node.name()))
            {
                final String reason = "its node " + node.name() + " (" + address + ") " + what;
                client.send("e stagecoach: node " + node.name() + " (" + address + ") " + what + "; " +
                    node.describeRanks() + " of job " + jobId + " lost");
                for (final int rank : node.ranks())
                {
                    rendezvous.rankDied(rank, reason);
                }
                ended.put(node.name(), 1);
                if (null == failure)
                {
                    failure = "node " + node.name() + " " + what;
                }
                endParts("node " + node.name() + " " + what);
            }
        }
    }

    private Behavior<Command> onEnd(final End end)
    {
        if (null == failure)
        {
            failure = end.reason();
        }
        endParts(end.reason());
        return Behaviors.same();
    }

    private Behavior<Command> onEndNow(final EndNow end)
    {
        endParts(end.reason());
        return Behaviors.same();
    }

    private void endParts(final String reason)
    {
        if (ending)
        {
            return;
        }
        ending = true;
        for (final NodeOfJob node : nodes.values())
        {
            if (!ended.containsKey(node.name()))
            {
                node.agent().tell(new JobsBehavior.EndPart(jobId, "job " + jobId + " ends: " + reason));
            }
        }
    }

    private Behavior<Command> finish()
    {
        int status = 0;
        for (final int partStatus : ended.values())
        {
            status = Math.max(status, partStatus);
        }
        if (status == 0 && null != failure)
        {
            status = 1;
        }
        if (status != 0)
        {
            client.send("e stagecoach: job " + jobId + " failed with exit status " + status +
                (null == failure ? "" : "; first failure: " + failure));
        }
        client.send("x " + status);
        client.close();
        LOG.info("job {} ended with status {}", jobId, status);
        return Behaviors.stopped();
    }

    private Behavior<Command> onStop()
    {
        if (null != trace)
        {
            trace.tell(JobTraceMerge.JobEnded.INSTANCE);
        }
        rendezvous.close();
        return Behaviors.same();
    }

    /**
     * What a job's coordinator takes.
     */
    sealed interface Command
    {
    }

    /**
     * A line a node's ranks or launcher wrote.
     *
     * @param node  the node.
     * @param error true for standard error.
     * @param line  the line, without its end.
     */
    record PartOutput(String node, boolean error, String line) implements Command, JobMessage
    {
    }

    /**
     * A rank of a node exited.
     *
     * @param node        the node.
     * @param rank        the rank.
     * @param status      its exit status.
     * @param description of the exit.
     */
    record PartRankExited(String node, int rank, int status, String description) implements Command, JobMessage
    {
    }

    /**
     * A node's part of the job ended: every rank it started has exited, or it could not start.
     *
     * @param node    the node.
     * @param status  the worst exit status of its ranks that ended by themselves (124 after the timeout).
     * @param message why it could not start, or empty.
     */
    record PartEnded(String node, int status, String message) implements Command, JobMessage
    {
    }

    /**
     * End the job now (a kill, or the submitter went away).
     *
     * @param reason why.
     */
    record End(String reason) implements Command
    {
    }

    private record EndNow(String reason) implements Command
    {
    }

    private record Reachability(ClusterEvent.ReachabilityEvent event) implements Command
    {
    }

    private record Removed(ClusterEvent.MemberRemoved event) implements Command
    {
    }
}
