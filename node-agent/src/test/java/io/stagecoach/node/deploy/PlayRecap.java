package io.stagecoach.node.deploy;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The PLAY RECAP lines of an {@code ansible-playbook} run: per host, how many tasks changed something and how many
 * failed or could not reach it.
 *
 * @param hosts the counts of each host, in the recap's order.
 */
record PlayRecap(Map<String, Counts> hosts)
{
    private static final Pattern LINE = Pattern.compile(
        "^(\\S+)\\s+:\\s+ok=(\\d+)\\s+changed=(\\d+)\\s+unreachable=(\\d+)\\s+failed=(\\d+)", Pattern.MULTILINE);

    /**
     * @param ok          tasks that ran.
     * @param changed     tasks that changed something (or would, in check mode).
     * @param unreachable tasks that could not reach the host.
     * @param failed      tasks that failed.
     */
    record Counts(int ok, int changed, int unreachable, int failed)
    {
    }

    static PlayRecap parse(final String output)
    {
        final int recap = output.lastIndexOf("PLAY RECAP");
        final Map<String, Counts> hosts = new LinkedHashMap<>();
        if (recap >= 0)
        {
            final Matcher matcher = LINE.matcher(output.substring(recap));
            while (matcher.find())
            {
                hosts.put(matcher.group(1), new Counts(Integer.parseInt(matcher.group(2)),
                    Integer.parseInt(matcher.group(3)), Integer.parseInt(matcher.group(4)),
                    Integer.parseInt(matcher.group(5))));
            }
        }
        return new PlayRecap(hosts);
    }

    boolean allReachedWithoutFailure()
    {
        return !hosts.isEmpty() && hosts.values().stream().allMatch(c -> c.unreachable() == 0 && c.failed() == 0);
    }
}
