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

import org.apache.pekko.actor.CoordinatedShutdown;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.cluster.ClusterEvent;
import org.apache.pekko.cluster.Member;
import org.apache.pekko.cluster.typed.Cluster;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A running node agent: the cluster member (an actor system over Artery TCP that joins the seeds and logs member
 * events) and its control socket. {@link #stop()} leaves the cluster through Pekko's coordinated shutdown and
 * removes the socket; SIGTERM does the same through a shutdown hook, which then ends the JVM with status 0.
 */
public final class NodeAgent
{
    /** How long leaving the cluster and stopping may take before the agent stops anyway. */
    public static final Duration STOP_TIMEOUT = Duration.ofSeconds(12);

    private static final Logger LOG = LoggerFactory.getLogger(NodeAgent.class);

    private final AgentSettings settings;
    private final ActorSystem<ClusterEvent.ClusterDomainEvent> system;
    private final ControlServer control;
    private final AtomicBoolean stopped = new AtomicBoolean();

    private NodeAgent(final AgentSettings settings, final ActorSystem<ClusterEvent.ClusterDomainEvent> system,
        final ControlServer control)
    {
        this.settings = settings;
        this.system = system;
        this.control = control;
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
        final ActorSystem<ClusterEvent.ClusterDomainEvent> system = ActorSystem.create(MemberEventLogger.create(),
            AgentSystemConfig.SYSTEM_NAME, AgentSystemConfig.of(settings));
        final NodeAgent[] agent = new NodeAgent[1];
        try
        {
            final ControlServer control = ControlServer.open(socket, settings.groupAccess(),
                request -> agent[0].answer(request), ControlServer.IDLE_TIMEOUT);
            agent[0] = new NodeAgent(settings, system, control);
        }
        catch (final IOException | RuntimeException ex)
        {
            system.terminate();
            throw ex;
        }
        LOG.info("agent of node {} at {}, {} GPU(s), seeds {}, control socket {}", settings.nodeName(),
            settings.selfAddress(), settings.gpus(), settings.seeds(), socket);
        return agent[0];
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

    private String answer(final String request)
    {
        if ("status".equals(request))
        {
            return status().toJson();
        }
        if ("ping".equals(request))
        {
            return "ok";
        }
        return "error: unknown request '" + (request.length() > 64 ? request.substring(0, 64) + "..." : request) +
            "'; requests: status, ping";
    }
}
