package io.stagecoach.node.jobs;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The parts of jobs running on this node, by job: kept by the jobs actor, ended by the agent when it stops.
 */
public final class NodeParts
{
    private final Map<String, NodePart> parts = new ConcurrentHashMap<>();

    void put(final String jobId, final NodePart part)
    {
        parts.put(jobId, part);
    }

    NodePart get(final String jobId)
    {
        return parts.get(jobId);
    }

    boolean contains(final String jobId)
    {
        return parts.containsKey(jobId);
    }

    void remove(final String jobId)
    {
        parts.remove(jobId);
    }

    List<String> jobIds()
    {
        return List.copyOf(parts.keySet());
    }

    /**
     * Ends every part's ranks and waits for them to exit.
     *
     * @param reason  why, for the reports.
     * @param timeoutMs how long to wait for all of them.
     * @return true where all have ended.
     */
    public boolean endAll(final String reason, final long timeoutMs)
    {
        final List<NodePart> running = List.copyOf(parts.values());
        running.forEach(part -> part.end(reason));
        final long deadlineNs = System.nanoTime() + timeoutMs * 1_000_000L;
        boolean all = true;
        for (final NodePart part : running)
        {
            all &= part.awaitEnd(Math.max(1, (deadlineNs - System.nanoTime()) / 1_000_000L));
        }
        return all;
    }
}
