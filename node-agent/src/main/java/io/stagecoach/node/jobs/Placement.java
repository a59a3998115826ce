package io.stagecoach.node.jobs;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Where the ranks of a job run, by slot as {@code mpirun} maps them: the first node's slots take ranks 0, 1, ...,
 * then the next node's; with more ranks than slots (allowed only when oversubscribing) the rest go round the nodes
 * one at a time.
 */
final class Placement
{
    private Placement()
    {
    }

    /**
     * @param size          ranks of the job.
     * @param hosts         the nodes and their slots, in order.
     * @param oversubscribe whether more ranks than slots are allowed.
     * @return each node that gets ranks, in order, with its ranks ascending.
     * @throws IllegalArgumentException where there are more ranks than slots without oversubscribing.
     */
    static Map<String, int[]> place(final int size, final List<HostSlots> hosts, final boolean oversubscribe)
    {
        final int slots = hosts.stream().mapToInt(HostSlots::slots).sum();
        if (size > slots && !oversubscribe)
        {
            throw new IllegalArgumentException("-n " + size + " asks for more ranks than the " + slots +
                " slots of the nodes given (" + describe(hosts) + "); add --oversubscribe to run more ranks than slots");
        }
        final Map<String, List<Integer>> ranks = new LinkedHashMap<>();
        int rank = 0;
        for (final HostSlots host : hosts)
        {
            for (int i = 0; i < host.slots() && rank < size; i++)
            {
                ranks.computeIfAbsent(host.node(), node -> new ArrayList<>()).add(rank++);
            }
        }
        for (int i = 0; rank < size; i++)
        {
            ranks.computeIfAbsent(hosts.get(i % hosts.size()).node(), node -> new ArrayList<>()).add(rank++);
        }
        final Map<String, int[]> placed = new LinkedHashMap<>();
        ranks.forEach((node, list) -> placed.put(node, list.stream().mapToInt(Integer::intValue).sorted().toArray()));
        return placed;
    }

    static String describe(final List<HostSlots> hosts)
    {
        final StringBuilder text = new StringBuilder();
        for (final HostSlots host : hosts)
        {
            text.append(text.length() == 0 ? "" : ",").append(host.node()).append(':').append(host.slots());
        }
        return text.toString();
    }
}
