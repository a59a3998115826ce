package io.stagecoach.node.jobs;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * A node of a job and how many ranks it takes, as {@code mpirun}'s {@code -H} and hostfile give them.
 *
 * @param node  the node's name, as its agent's {@code node-name}.
 * @param slots ranks it takes before the next node gets any, at least 1.
 */
public record HostSlots(String node, int slots)
{
    /** The most slots one node may give a job. */
    public static final int MAX_SLOTS = 1024;

    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,62}");

    /**
     * Reads {@code -H}'s list: {@code node-a:4,node-b:4}; a node without {@code :N} has one slot, a node named again
     * adds its slots.
     *
     * @param list the option's value.
     * @return the nodes in order.
     * @throws IllegalArgumentException naming the entry that cannot be used.
     */
    public static List<HostSlots> parseList(final String list)
    {
        final Map<String, Integer> slots = new LinkedHashMap<>();
        for (final String entry : list.split(",", -1))
        {
            final String trimmed = entry.strip();
            final int colon = trimmed.lastIndexOf(':');
            add(slots, colon < 0 ? trimmed : trimmed.substring(0, colon),
                colon < 0 ? 1 : number(trimmed.substring(colon + 1), "-H " + list + ": '" + trimmed + "'"),
                "-H " + list);
        }
        return toList(slots);
    }

    /**
     * Reads a hostfile in Open MPI's syntax: one node per line, {@code node-a slots=4} (or {@code node-a:4}, or the
     * name alone for one slot), {@code #} comments and blank lines ignored, {@code max_slots=N} accepted and ignored.
     *
     * @param file the hostfile.
     * @return the nodes in order.
     * @throws IOException              when it cannot be read.
     * @throws IllegalArgumentException naming the file, the line and what is wrong.
     */
    public static List<HostSlots> parseFile(final Path file) throws IOException
    {
        final Map<String, Integer> slots = new LinkedHashMap<>();
        final List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        for (int i = 0; i < lines.size(); i++)
        {
            final String where = file + " line " + (i + 1);
            final String line = lines.get(i).replaceFirst("#.*", "").strip();
            if (line.isEmpty())
            {
                continue;
            }
            final String[] words = line.split("\\s+");
            String node = words[0];
            int count = 1;
            final int colon = node.lastIndexOf(':');
            if (colon >= 0)
            {
                count = number(node.substring(colon + 1), where);
                node = node.substring(0, colon);
            }
            for (int w = 1; w < words.length; w++)
            {
                if (words[w].startsWith("slots="))
                {
                    count = number(words[w].substring("slots=".length()), where);
                }
                else if (!words[w].startsWith("max_slots="))
                {
                    throw new IllegalArgumentException(where + ": '" + words[w] + "' is neither slots=N nor max_slots=N");
                }
            }
            add(slots, node, count, where);
        }
        if (slots.isEmpty())
        {
            throw new IllegalArgumentException(file + " names no node");
        }
        return toList(slots);
    }

    private static void add(final Map<String, Integer> slots, final String node, final int count, final String where)
    {
        if (!NAME.matcher(node).matches())
        {
            throw new IllegalArgumentException(where + ": '" + node + "' is not a node name (letters, digits, '.', " +
                "'_' and '-', at most 63, starting with a letter or digit)");
        }
        final int total = slots.getOrDefault(node, 0) + count;
        if (total > MAX_SLOTS)
        {
            throw new IllegalArgumentException(where + ": node " + node + " has " + total + " slots, more than " +
                MAX_SLOTS);
        }
        slots.put(node, total);
    }

    private static int number(final String text, final String where)
    {
        try
        {
            final int value = Integer.parseInt(text.strip());
            if (value >= 1 && value <= MAX_SLOTS)
            {
                return value;
            }
        }
        catch (final NumberFormatException ignore)
        {
            // named below
        }
        throw new IllegalArgumentException(where + ": slots must be a whole number from 1 to " + MAX_SLOTS +
            ", not '" + text + "'");
    }

    private static List<HostSlots> toList(final Map<String, Integer> slots)
    {
        final List<HostSlots> hosts = new ArrayList<>();
        slots.forEach((node, count) -> hosts.add(new HostSlots(node, count)));
        return List.copyOf(hosts);
    }
}
