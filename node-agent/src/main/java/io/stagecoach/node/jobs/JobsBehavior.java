package io.stagecoach.node.jobs;

import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

import io.stagecoach.node.agent.AgentSettings;
import io.stagecoach.node.agent.ControlStream;
import io.stagecoach.node.agent.JobSettings;
import io.stagecoach.node.agent.Json;
import io.stagecoach.node.agent.MemberView;
import io.stagecoach.node.dashboard.JobTrace;
import io.stagecoach.node.launch.JobObserver;
import io.stagecoach.rank.bootstrap.LaunchEnvironment;
import org.apache.pekko.actor.Address;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.SupervisorStrategy;
import org.apache.pekko.actor.typed.receptionist.Receptionist;
import org.apache.pekko.actor.typed.receptionist.ServiceKey;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.cluster.Member;
import org.apache.pekko.cluster.MemberStatus;
import org.apache.pekko.cluster.typed.Cluster;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An agent's jobs: it takes jobs submitted on this node ({@link Submit}), places their ranks on the named nodes and
 * starts a {@link JobCoordinator} for each; it runs this node's part of any job ({@link StartPart}) with the node's
 * media driver, a block of UDP ports for the ranks and, where the node's ranks outnumber its GPUs, the CUDA MPS
 * daemon; it lists ({@code ps}) and kills jobs. The agents find each other through the receptionist.
 */
public final class JobsBehavior
{
    /** The receptionist's key of every agent's jobs actor. */
    public static final ServiceKey<Command> KEY = ServiceKey.create(Command.class, "stagecoach-jobs");

    /** How long a submission waits for the jobs actor of a node that is up to be seen through the receptionist. */
    static final Duration LISTING_WAIT = Duration.ofSeconds(10);

    private static final Logger LOG = LoggerFactory.getLogger(JobsBehavior.class);
    private static final String NO_KEY = "this agent runs no jobs: it talks plain TCP on a network address, where " +
        "anyone who reaches its port could join and start ranks; give it the cluster's key (tls.key-store, " +
        "tls.password-file)";

    private static final String ONLY_OWN_JOBS = "without the cluster key (tls) this agent runs only the ranks of " +
        "jobs submitted to it, not a part of another agent's job: on loopback any local user could start an agent " +
        "of their own, join this cluster and start ranks as this agent's user";

    private final ActorContext<Command> context;
    private final AgentSettings settings;
    private final Path aeronDirectory;
    private final NodeParts parts;
    private final JobDashboard dashboard;
    private final Set<ActorRef<Command>> agents = new HashSet<>();
    private final Map<String, Submitted> submitted = new LinkedHashMap<>();
    private final Map<String, Integer> portBlocks = new HashMap<>();
    private final Map<String, MpsDaemon> mps = new HashMap<>();
    private final BitSet usedBlocks = new BitSet();
    private int jobCount;

    private JobsBehavior(final ActorContext<Command> context, final AgentSettings settings, final Path aeronDirectory,
        final NodeParts parts, final JobDashboard dashboard)
    {
        this.context = context;
        this.settings = settings;
        this.aeronDirectory = aeronDirectory;
        this.parts = parts;
        this.dashboard = dashboard;
    }

    /**
     * @param settings       the agent's settings.
     * @param aeronDirectory the node's media driver.
     * @param parts          where this node's running parts are kept, for the agent to end them when it stops.
     * @param dashboard      the node's live dashboard, or {@link JobDashboard#NONE}.
     * @return the behavior.
     */
    public static Behavior<Command> create(final AgentSettings settings, final Path aeronDirectory,
        final NodeParts parts, final JobDashboard dashboard)
    {
        return Behaviors.setup(context ->
        {
            context.getSystem().receptionist().tell(Receptionist.register(KEY, context.getSelf()));
            final ActorRef<Receptionist.Listing> listings =
                context.messageAdapter(Receptionist.Listing.class, ListingChanged::new);
            context.getSystem().receptionist().tell(Receptionist.subscribe(KEY, listings));
            return new JobsBehavior(context, settings, aeronDirectory, parts, dashboard).behavior();
        });
    }

    /**
     * @param settings       the agent's settings.
     * @param aeronDirectory the node's media driver.
     * @param parts          where this node's running parts are kept.
     * @param dashboard      the node's live dashboard, or {@link JobDashboard#NONE}.
     * @return {@link #create} kept running through a failure of one message's handling, which is logged: the jobs
     * running here and the ranks' ports stay known.
     */
    public static Behavior<Command> supervised(final AgentSettings settings, final Path aeronDirectory,
        final NodeParts parts, final JobDashboard dashboard)
    {
        return Behaviors.supervise(create(settings, aeronDirectory, parts, dashboard))
            .onFailure(SupervisorStrategy.resume());
    }

    private Behavior<Command> behavior()
    {
        return Behaviors.receive(Command.class)
            .onMessage(ListingChanged.class, this::onListing)
            .onMessage(Submit.class, submit -> onSubmit(submit, System.nanoTime() + LISTING_WAIT.toNanos()))
            .onMessage(RetrySubmit.class, retry -> onSubmit(retry.submit(), retry.deadlineNs()))
            .onMessage(StartPart.class, this::onStartPart)
            .onMessage(EndPart.class, this::onEndPart)
            .onMessage(PartFinished.class, this::onPartFinished)
            .onMessage(CoordinatorGone.class, this::onCoordinatorGone)
            .onMessage(ListJobs.class, this::onList)
            .onMessage(KillJob.class, this::onKill)
            .build();
    }

    private Behavior<Command> onListing(final ListingChanged changed)
    {
        agents.clear();
        agents.addAll(changed.listing().getServiceInstances(KEY));
        return Behaviors.same();
    }

    private Behavior<Command> onSubmit(final Submit submit, final long deadlineNs)
    {
        if (!settings.runsJobs())
        {
            submit.client().send("error: " + NO_KEY);
            submit.client().close();
            return Behaviors.same();
        }
        final JobRequest request = submit.request();
        final List<NodeOfJob> nodes;
        try
        {
            nodes = nodesOf(request);
        }
        catch (final NotListedYet ex)
        {
            if (System.nanoTime() - deadlineNs < 0)
            {
                context.scheduleOnce(Duration.ofMillis(100), context.getSelf(), new RetrySubmit(submit, deadlineNs));
                return Behaviors.same();
            }
            submit.client().send("error: " + ex.getMessage());
            submit.client().close();
            return Behaviors.same();
        }
        catch (final IllegalArgumentException ex)
        {
            submit.client().send("error: " + ex.getMessage());
            submit.client().close();
            return Behaviors.same();
        }
        final String jobId = settings.nodeName() + "-" + (++jobCount) + "-" +
            Integer.toHexString(ThreadLocalRandom.current().nextInt(0x1000, 0x10000));
        final InetAddress bind;
        try
        {
            bind = InetAddress.getByName(settings.host());
        }
        catch (final UnknownHostException ex)
        {
            submit.client().send("error: the agent's bind.host " + settings.host() + " does not resolve");
            submit.client().close();
            return Behaviors.same();
        }
        final ActorRef<JobCoordinator.Command> coordinator = context.spawn(
            JobCoordinator.create(jobId, request, nodes, bind, submit.client(), showTrace(jobId, request, nodes)),
            "job-" + jobId);
        context.watchWith(coordinator, new CoordinatorGone(jobId));
        submitted.put(jobId, new Submitted(jobId, request, nodes, coordinator, System.currentTimeMillis()));
        return Behaviors.same();
    }

    /**
     * @return the merge of the job's trace on this node's dashboard, or null where it serves none.
     */
    private ActorRef<JobTraceMerge.Command> showTrace(
        final String jobId, final JobRequest request, final List<NodeOfJob> nodes)
    {
        final JobTrace trace = dashboard.show(jobId, request.program(), request.size());
        if (null == trace)
        {
            return null;
        }
        final Map<Integer, String> rankNodes = new HashMap<>();
        final Set<String> names = new HashSet<>();
        for (final NodeOfJob node : nodes)
        {
            names.add(node.name());
            for (final int rank : node.ranks())
            {
                rankNodes.put(rank, node.name());
            }
        }
        trace.rankNodes(rankNodes);
        return context.spawn(JobTraceMerge.create(trace, names), "trace-" + jobId);
    }

    private List<NodeOfJob> nodesOf(final JobRequest request)
    {
        final Map<String, Address> addresses = new LinkedHashMap<>();
        for (final Member member : Cluster.get(context.getSystem()).state().getMembers())
        {
            if (member.status() == MemberStatus.up())
            {
                addresses.put(MemberView.nodeOf(new ArrayList<>(member.getRoles())), member.address());
            }
        }
        final Map<Address, ActorRef<Command>> byAddress = new HashMap<>();
        final Address self = Cluster.get(context.getSystem()).selfMember().address();
        for (final ActorRef<Command> agent : agents)
        {
            final Address address = agent.path().address();
            byAddress.put(address.hasLocalScope() ? self : address, agent);
        }
        final Map<String, int[]> placed = Placement.place(request.size(), request.hosts(), request.oversubscribe());
        final List<NodeOfJob> nodes = new ArrayList<>();
        for (final Map.Entry<String, int[]> entry : placed.entrySet())
        {
            final Address address = addresses.get(entry.getKey());
            if (null == address)
            {
                throw new IllegalArgumentException("node " + entry.getKey() + " has no agent up in the cluster; " +
                    "nodes up: " + String.join(", ", addresses.keySet()));
            }
            final ActorRef<Command> agent = byAddress.get(address);
            if (null == agent)
            {
                throw new NotListedYet("the agent of node " + entry.getKey() + " is up but its jobs actor was not " +
                    "seen within " + LISTING_WAIT.toSeconds() + " s");
            }
            if (entry.getValue().length > JobSettings.PORTS_PER_JOB)
            {
                throw new IllegalArgumentException("node " + entry.getKey() + " would run " +
                    entry.getValue().length + " ranks of the job, more than " + JobSettings.PORTS_PER_JOB);
            }
            nodes.add(new NodeOfJob(entry.getKey(), address, agent, entry.getValue()));
        }
        return nodes;
    }

    private Behavior<Command> onStartPart(final StartPart start)
    {
        final String jobId = start.jobId();
        if (!settings.runsJobs())
        {
            start.coordinator().tell(new JobCoordinator.PartEnded(settings.nodeName(), 1, NO_KEY));
            return Behaviors.same();
        }
        if (null == settings.clusterKey() && !start.coordinator().path().address().hasLocalScope())
        {
            context.getLog().warn("node {}: refused a part of job {} from {}: no cluster key", settings.nodeName(),
                jobId, start.coordinator().path().address());
            start.coordinator().tell(new JobCoordinator.PartEnded(settings.nodeName(), 1, ONLY_OWN_JOBS));
            return Behaviors.same();
        }
        if (parts.contains(jobId))
        {
            return Behaviors.same();
        }
        final int block = usedBlocks.nextClearBit(0);
        final int portBase = settings.jobs().rankPortBase() + block * JobSettings.PORTS_PER_JOB;
        if (portBase + JobSettings.PORTS_PER_JOB > 65536)
        {
            start.coordinator().tell(new JobCoordinator.PartEnded(settings.nodeName(), 1,
                "no free block of " + JobSettings.PORTS_PER_JOB + " UDP ports from " +
                    settings.jobs().rankPortBase()));
            return Behaviors.same();
        }
        final Map<String, String> environment = new HashMap<>();
        environment.put("STAGECOACH_UDP_HOST", settings.host());
        environment.put("STAGECOACH_UDP_PORT_BASE", Integer.toString(portBase));
        environment.put(LaunchEnvironment.RENDEZVOUS_SCOPE, "cluster");
        if (!startMps(start, environment))
        {
            return Behaviors.same();
        }
        usedBlocks.set(block);
        portBlocks.put(jobId, block);
        if (!submitted.containsKey(jobId))
        {
            context.watchWith(start.coordinator(), new CoordinatorGone(jobId));
        }
        final ActorRef<Command> self = context.getSelf();
        final JobObserver observer = null == start.trace() ? dashboard.partObserver() :
            new PartTraceForwarder(settings.nodeName(), start.trace(), context.getSystem().scheduler());
        final NodePart part = NodePart.start(start, settings.nodeName(), aeronDirectory, environment, observer,
            () -> self.tell(new PartFinished(jobId)));
        if (null != part)
        {
            parts.put(jobId, part);
            LOG.info("job {}: ranks {} started here", jobId, java.util.Arrays.toString(start.ranks()));
        }
        return Behaviors.same();
    }

    private boolean startMps(final StartPart start, final Map<String, String> environment)
    {
        if (settings.gpus() == 0 || start.ranks().length <= settings.gpus() || !settings.jobs().mpsEnabled())
        {
            return true;
        }
        try
        {
            final MpsDaemon daemon = MpsDaemon.start(settings.jobs().mpsControl(), settings.stateFolder(),
                start.jobId());
            mps.put(start.jobId(), daemon);
            environment.putAll(daemon.environment());
            return true;
        }
        catch (final IOException ex)
        {
            start.coordinator().tell(new JobCoordinator.PartEnded(settings.nodeName(), 1,
                start.ranks().length + " ranks share " + settings.gpus() + " GPU(s) and the CUDA MPS daemon " +
                    "could not be started: " + ex.getMessage()));
            return false;
        }
    }

    private Behavior<Command> onEndPart(final EndPart end)
    {
        final NodePart part = parts.get(end.jobId());
        if (null != part)
        {
            part.end(end.reason());
        }
        return Behaviors.same();
    }

    private Behavior<Command> onPartFinished(final PartFinished finished)
    {
        parts.remove(finished.jobId());
        final Integer block = portBlocks.remove(finished.jobId());
        if (null != block)
        {
            usedBlocks.clear(block);
        }
        final MpsDaemon daemon = mps.remove(finished.jobId());
        if (null != daemon)
        {
            daemon.close();
        }
        return Behaviors.same();
    }

    private Behavior<Command> onCoordinatorGone(final CoordinatorGone gone)
    {
        submitted.remove(gone.jobId());
        final NodePart part = parts.get(gone.jobId());
        if (null != part)
        {
            part.end("the agent that ran job " + gone.jobId() + " is gone");
        }
        return Behaviors.same();
    }

    private Behavior<Command> onList(final ListJobs list)
    {
        for (final Submitted job : submitted.values())
        {
            list.client().send(job.toJson(parts.contains(job.jobId())));
        }
        for (final String jobId : parts.jobIds())
        {
            if (!submitted.containsKey(jobId))
            {
                list.client().send("{\"job\":\"" + jobId + "\",\"submitted-here\":false,\"ranks-here\":true}");
            }
        }
        list.client().close();
        return Behaviors.same();
    }

    private Behavior<Command> onKill(final KillJob kill)
    {
        final Submitted job = submitted.get(kill.jobId());
        if (null == job)
        {
            kill.client().send("error: no job " + kill.jobId() + " was submitted to this node's agent" +
                (submitted.isEmpty() ? " (none runs)" : "; jobs: " + String.join(", ", submitted.keySet())));
        }
        else
        {
            job.coordinator().tell(new JobCoordinator.End("killed by stagecoach kill"));
            kill.client().send("ok");
        }
        kill.client().close();
        return Behaviors.same();
    }

    /**
     * What an agent's jobs actor takes.
     */
    public sealed interface Command
    {
    }

    /**
     * Run a job submitted on this node.
     *
     * @param request the job.
     * @param client  the submitter, who gets its output and exit status.
     */
    public record Submit(JobRequest request, ControlStream client) implements Command
    {
    }

    /**
     * List the jobs submitted here and those with ranks here, one JSON object a line.
     *
     * @param client who asked.
     */
    public record ListJobs(ControlStream client) implements Command
    {
    }

    /**
     * End a job submitted here.
     *
     * @param jobId  the job.
     * @param client who asked: {@code ok} or an error.
     */
    public record KillJob(String jobId, ControlStream client) implements Command
    {
    }

    /**
     * Start this node's ranks of a job.
     *
     * @param jobId       the job.
     * @param coordinator the job's coordinator.
     * @param request     the job.
     * @param ranks       the ranks this node runs.
     * @param rendezvous  the job's rendezvous service, {@code host:port}.
     * @param secret      the job's secret.
     * @param trace       where the part's live trace goes (the dashboard of the agent the job was submitted to), or
     *                    null where that agent serves none.
     */
    record StartPart(String jobId, ActorRef<JobCoordinator.Command> coordinator, JobRequest request, int[] ranks,
        String rendezvous, String secret, ActorRef<JobTraceMerge.Command> trace) implements Command, JobMessage
    {
    }

    /**
     * End this node's ranks of a job.
     *
     * @param jobId  the job.
     * @param reason why.
     */
    record EndPart(String jobId, String reason) implements Command, JobMessage
    {
    }

    private record ListingChanged(Receptionist.Listing listing) implements Command
    {
    }

    private record RetrySubmit(Submit submit, long deadlineNs) implements Command
    {
    }

    /**
     * A node of the job is up, but its agent's jobs actor has not been seen yet (the receptionist spreads its
     * registrations a moment after the member joined).
     */
    private static final class NotListedYet extends IllegalArgumentException
    {
        private static final long serialVersionUID = 1L;

        private NotListedYet(final String message)
        {
            super(message);
        }
    }

    private record PartFinished(String jobId) implements Command
    {
    }

    private record CoordinatorGone(String jobId) implements Command
    {
    }

    /**
     * A job submitted here, while it runs.
     */
    private record Submitted(String jobId, JobRequest request, List<NodeOfJob> nodes,
        ActorRef<JobCoordinator.Command> coordinator, long startedMs)
    {
        String toJson(final boolean ranksHere)
        {
            final StringBuilder placement = new StringBuilder();
            for (final NodeOfJob node : nodes)
            {
                placement.append(placement.length() == 0 ? "" : ",").append(node.name()).append(':')
                    .append(node.ranks().length);
            }
            return "{\"job\":\"" + jobId + "\",\"submitted-here\":true,\"ranks-here\":" + ranksHere +
                ",\"size\":" + request.size() + ",\"program\":" + Json.quote(request.program()) + ",\"nodes\":\"" + placement + "\",\"started-ms\":" + startedMs + "}";
        }
    }
}
