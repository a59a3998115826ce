package io.stagecoach.node.agent;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigParseOptions;
import com.typesafe.config.ConfigSyntax;

/**
 * The answer to {@code status}: this agent's node and address and the cluster's members as it sees them; written as
 * one line of JSON on the control socket, read back and printed as a table by {@code agent status}.
 *
 * @param node    this agent's node name.
 * @param self    this agent's Pekko address.
 * @param members the members, ordered by node name, then address.
 */
public record ClusterStatus(String node, String self, List<MemberView> members)
{
    /**
     * @return one line of JSON.
     */
    public String toJson()
    {
        final StringBuilder json = new StringBuilder(256);
        json.append("{\"node\":").append(Json.quote(node)).append(",\"self\":").append(Json.quote(self))
            .append(",\"members\":[");
        for (int i = 0; i < members.size(); i++)
        {
            final MemberView member = members.get(i);
            json.append(i == 0 ? "" : ",").append("{\"node\":").append(Json.quote(member.node()))
                .append(",\"address\":").append(Json.quote(member.address()))
                .append(",\"status\":").append(Json.quote(member.status()))
                .append(",\"reachable\":").append(member.reachable())
                .append(",\"gpus\":").append(member.gpus())
                .append(",\"roles\":[");
            for (int r = 0; r < member.roles().size(); r++)
            {
                json.append(r == 0 ? "" : ",").append(Json.quote(member.roles().get(r)));
            }
            json.append("]}");
        }
        return json.append("]}").toString();
    }

    /**
     * @param json what {@link #toJson()} wrote.
     * @return the status.
     * @throws com.typesafe.config.ConfigException where the text is no such JSON.
     */
    public static ClusterStatus parse(final String json)
    {
        final Config config = ConfigFactory.parseString(json,
            ConfigParseOptions.defaults().setSyntax(ConfigSyntax.JSON));
        final List<MemberView> members = new ArrayList<>();
        for (final Config member : config.getConfigList("members"))
        {
            members.add(new MemberView(member.getString("node"), member.getString("address"),
                member.getString("status"), member.getBoolean("reachable"), member.getInt("gpus"),
                member.getStringList("roles")));
        }
        return new ClusterStatus(config.getString("node"), config.getString("self"), List.copyOf(members));
    }

    /**
     * Prints the members as a table, this agent's marked with {@code *}.
     *
     * @param out where.
     */
    public void printTable(final PrintWriter out)
    {
        int nodeWidth = "NODE".length();
        int addressWidth = "ADDRESS".length();
        for (final MemberView member : members)
        {
            nodeWidth = Math.max(nodeWidth, member.node().length());
            addressWidth = Math.max(addressWidth, member.address().length());
        }
        final String format = "%-2s%-" + nodeWidth + "s  %-" + addressWidth + "s  %-8s  %-11s  %4s%n";
        out.printf(format, "", "NODE", "ADDRESS", "STATUS", "REACHABLE", "GPUS");
        for (final MemberView member : members)
        {
            out.printf(format, member.address().equals(self) ? "*" : "", member.node(), member.address(),
                member.status(), member.reachable() ? "yes" : "no", member.gpus() < 0 ? "?" : member.gpus());
        }
        out.printf("%d member(s); * is node %s, the agent asked%n", members.size(), node);
    }
}
