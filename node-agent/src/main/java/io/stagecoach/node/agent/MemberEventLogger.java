package io.stagecoach.node.agent;

import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.cluster.ClusterEvent;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.cluster.typed.Subscribe;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The agent's guardian: subscribes to the cluster's member and reachability events and logs each, naming the
 * member's node.
 */
public final class MemberEventLogger
{
    private static final Logger LOG = LoggerFactory.getLogger(MemberEventLogger.class);

    private MemberEventLogger()
    {
    }

    /**
     * @return the behaviour.
     */
    public static Behavior<ClusterEvent.ClusterDomainEvent> create()
    {
        return Behaviors.setup(context ->
        {
            final Cluster cluster = Cluster.get(context.getSystem());
            cluster.subscriptions().tell(Subscribe.create(context.getSelf().<ClusterEvent.MemberEvent>narrow(),
                ClusterEvent.MemberEvent.class));
            cluster.subscriptions().tell(Subscribe.create(
                context.getSelf().<ClusterEvent.ReachabilityEvent>narrow(), ClusterEvent.ReachabilityEvent.class));
            return Behaviors.receive(ClusterEvent.ClusterDomainEvent.class)
                .onMessage(ClusterEvent.MemberEvent.class, event ->
                {
                    LOG.info("member {} (node {}, {} GPU(s)): {}", event.member().address(),
                        MemberView.nodeOf(event.member().getRoles()), MemberView.gpusOf(event.member().getRoles()),
                        event.getClass().getSimpleName().replace("Member", "").toLowerCase());
                    return Behaviors.same();
                })
                .onMessage(ClusterEvent.ReachabilityEvent.class, event ->
                {
                    LOG.warn("member {} (node {}): {}", event.member().address(),
                        MemberView.nodeOf(event.member().getRoles()),
                        event instanceof ClusterEvent.UnreachableMember ? "unreachable" : "reachable again");
                    return Behaviors.same();
                })
                .build();
        });
    }
}
