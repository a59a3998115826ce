package io.stagecoach.node.agent;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;

import io.stagecoach.node.jobs.JobRequest;
import io.stagecoach.node.jobs.JobsBehavior;
import io.stagecoach.node.jobs.NodeParts;
import org.apache.pekko.actor.CoordinatedShutdown;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.cluster.ClusterEvent;
import org.apache.pekko.cluster.Member;
import org.apache.pekko.cluster.typed.Cluster;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A running node agent: the cluster member (an actor system over Artery TCP that joins the seeds and logs member
 * events), the node's Aeron media driver (in a private folder of its own, shared by the ranks of every job here), the
 * jobs actor ({@link JobsBehavior}) and its control socket. {@link #stop()} ends the ranks running here, leaves the
 * cluster through Pekko's coordinated shutdown, closes the driver and removes its folder and the socket; SIGTERM does
 * the same through a shutdown hook, which then ends the JVM with status 0.
 */
public final class NodeAgent
{
    /** How long leaving the cluster and stopping may take before the agent stops anyway. */
    public static final Duration STOP_TIMEOUT = Duration.ofSeconds(12);

    private static final Logger LOG = LoggerFactory.getLogger(NodeAgent.class);

    private final AgentSettings settings;
    private final ActorSystem<ClusterEvent.ClusterDomainEvent> system;
    private final NodeServices services;
    private final ActorRef<JobsBehavior.Command> jobs;
    private ControlServer control;
    private final AtomicBoolean stopped = new AtomicBoolean();

    private NodeAgent(final AgentSettings settings, final ActorSystem<ClusterEvent.ClusterDomainEvent> system,
        final NodeServices services)
    {
        this.settings = settings;
        this.system = system;
        this.services = services;
        this.jobs = system.systemActorOf(JobsBehavior.supervised(settings, services.aeronDirectory(),
            services.parts(), services),
            "jobs", Props.empty());
    }

    /**
     * Starts an agent: prepares the state folder, starts the cluster member and opens the control socket.
     *
     * @param settings the agent's settings.
     * @return the agent, joining the cluster.
     * @throws IOException where the state folder or the socket cannot be made.
     */
    public static NodeAgent start(final AgentSettings settings) throws IOException
    {
        final Path socket = StateFolder.prepare(settings.stateFolder(), settings.groupAccess());
        final NodeServices services = NodeServices.start(settings.jobs(), settings.stateFolder());
        final ActorSystem<ClusterEvent.ClusterDomainEvent> system;
        try
        {
            system = ActorSystem.create(MemberEventLogger.create(), AgentSystemConfig.SYSTEM_NAME,
                AgentSystemConfig.of(settings));
        }
        catch (final RuntimeException | Error ex)
        {
            services.close();
            throw ex;
        }
        final NodeAgent agent = new NodeAgent(settings, system, services);
        try
        {
            agent.control = ControlServer.open(socket, settings.groupAccess(), agent.new Requests(),
                ControlServer.IDLE_TIMEOUT);
        }
        catch (final IOException | RuntimeException ex)
        {
            system.terminate();
            services.close();
            throw ex;
        }
        if (!settings.runsJobs())
        {
            LOG.warn("node {}: no cluster key (tls) on {}: this agent runs no jobs", settings.nodeName(),
                settings.host());
        }
        LOG.info("agent of node {} at {}, {} GPU(s), seeds {}, control socket {}", settings.nodeName(),
            settings.selfAddress(), settings.gpus(), settings.seeds(), socket);
        return agent;
    }

    /**
     * Stops the agent on SIGTERM (and on any other end of the JVM): leaves the cluster, removes the socket and ends
     * the JVM with status 0.
     */
    public void stopOnSignal()
    {
        Runtime.getRuntime().addShutdownHook(new Thread(() ->
        {
            if (stop())
            {
                Runtime.getRuntime().halt(0);
            }
        }, "stagecoach-agent-stop"));
    }

    /**
     * Waits until the actor system ends, by {@link #stop()} or because the cluster removed this member.
     *
     * @throws InterruptedException where the wait is interrupted.
     */
    public void awaitTermination() throws InterruptedException
    {
        try
        {
            system.getWhenTerminated().toCompletableFuture().get();
        }
        catch (final ExecutionException ex)
        {
            LOG.debug("actor system ended: {}", ex.getCause().toString());
        }
    }

    /**
     * Leaves the cluster (Pekko's coordinated shutdown: leave, wait to be removed, end the actor system) and removes
     * the control socket; once only.
     *
     * @return true where this call stopped the agent, false where it was stopped before.
     */
    public boolean stop()
    {
        if (!stopped.compareAndSet(false, true))
        {
            return false;
        }
        if (!services.parts().endAll("the agent of node " + settings.nodeName() + " is stopping",
            STOP_TIMEOUT.toMillis()))
        {
            LOG.warn("node {}: ranks still running {} after they were ended", settings.nodeName(), STOP_TIMEOUT);
        }
        LOG.info("node {} leaving the cluster", settings.nodeName());
        try
        {
            CoordinatedShutdown.get(system).runAll(CoordinatedShutdown.jvmExitReason()).toCompletableFuture()
                .get(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        }
        catch (final TimeoutException ex)
        {
            LOG.warn("node {}: leaving took longer than {}, stopping anyway", settings.nodeName(), STOP_TIMEOUT);
            system.terminate();
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
        catch (final ExecutionException ex)
        {
            LOG.warn("node {}: leaving failed: {}", settings.nodeName(), ex.getCause().toString());
        }
        finally
        {
            control.close();
            services.close();
        }
        LOG.info("node {} stopped", settings.nodeName());
        return true;
    }

    /**
     * @return the control socket's path.
     */
    public Path socket()
    {
        return control.socket();
    }

    /**
     * @return this agent's view of the cluster.
     */
    public ClusterStatus status()
    {
        final Cluster cluster = Cluster.get(system);
        final ClusterEvent.CurrentClusterState state = cluster.state();
        final List<Member> unreachable = new ArrayList<>();
        state.getUnreachable().forEach(unreachable::add);
        final List<MemberView> members = new ArrayList<>();
        for (final Member member : state.getMembers())
        {
            final List<String> roles = new ArrayList<>(member.getRoles());
            roles.sort(null);
            members.add(new MemberView(MemberView.nodeOf(roles), member.address().toString(),
                member.status().toString(), !unreachable.contains(member), MemberView.gpusOf(roles),
                List.copyOf(roles)));
        }
        members.sort(Comparator.comparing(MemberView::node).thenComparing(MemberView::address));
        return new ClusterStatus(settings.nodeName(), cluster.selfMember().address().toString(), List.copyOf(members));
    }

    /**
     * The control socket's requests: {@code status} and {@code ping} answered at once; {@code submit JOB},
     * {@code jobs} and {@code kill JOB} answered by the jobs actor.
     */
    private final class Requests implements ControlRequests
    {
        public String answer(final String request)
        {
            if ("status".equals(request))
            {
                return status().toJson();
            }
            if ("ping".equals(request))
            {
                return "ok";
            }
            return "error: unknown request '" + (request.length() > 64 ? request.substring(0, 64) + "..." :
                request) + "'; requests: status, ping, submit, jobs, kill";
        }

        public boolean stream(final String request, final ControlStream stream)
        {
            if (request.startsWith("submit "))
            {
                jobs.tell(new JobsBehavior.Submit(JobRequest.fromText(request.substring("submit ".length())),
                    stream));
                return true;
            }
            if ("jobs".equals(request))
            {
                jobs.tell(new JobsBehavior.ListJobs(stream));
                return true;
            }
            if (request.startsWith("kill "))
            {
                jobs.tell(new JobsBehavior.KillJob(request.substring("kill ".length()).strip(), stream));
                return true;
            }
            return false;
        }
    }
}
