package io.stagecoach.node.agent;

import java.util.List;

/**
 * One cluster member as {@code agent status} shows it.
 *
 * @param node      the node's name (from its {@code node-} role), or "?" where it has none.
 * @param address   the member's Pekko address.
 * @param status    its membership status (Joining, Up, Leaving, Exiting, Down, Removed, WeaklyUp...).
 * @param reachable false where the failure detector of some member finds it unreachable.
 * @param gpus      its GPU count (from its {@code gpus-} role), -1 where it has none.
 * @param roles     all its roles.
 */
public record MemberView(String node, String address, String status, boolean reachable, int gpus, List<String> roles)
{
    /**
     * @param roles a member's roles.
     * @return the node's name they give, or "?".
     */
    public static String nodeOf(final Iterable<String> roles)
    {
        for (final String role : roles)
        {
            if (role.startsWith(AgentSystemConfig.NODE_ROLE))
            {
                return role.substring(AgentSystemConfig.NODE_ROLE.length());
            }
        }
        return "?";
    }

    /**
     * @param roles a member's roles.
     * @return the GPU count they give, or -1.
     */
    public static int gpusOf(final Iterable<String> roles)
    {
        for (final String role : roles)
        {
            if (role.startsWith(AgentSystemConfig.GPUS_ROLE))
            {
                try
                {
                    return Integer.parseInt(role.substring(AgentSystemConfig.GPUS_ROLE.length()));
                }
                catch (final NumberFormatException ex)
                {
                    return -1;
                }
            }
        }
        return -1;
    }
}
