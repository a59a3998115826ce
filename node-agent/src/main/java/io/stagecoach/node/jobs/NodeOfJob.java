package io.stagecoach.node.jobs;

import org.apache.pekko.actor.Address;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * A node taking part in a job: its agent's jobs actor, its cluster address and the ranks it runs.
 *
 * @param name    the node's name.
 * @param address its agent's cluster address.
 * @param agent   its agent's jobs actor.
 * @param ranks   the job's ranks it runs, ascending.
 */
record NodeOfJob(String name, Address address, ActorRef<JobsBehavior.Command> agent, int[] ranks)
{
    String describeRanks()
    {
        if (ranks.length == 1)
        {
            return "rank " + ranks[0];
        }
        final StringBuilder text = new StringBuilder("ranks ");
        for (int i = 0; i < ranks.length; i++)
        {
            text.append(i == 0 ? "" : ", ").append(ranks[i]);
        }
        return text.toString();
    }
}
