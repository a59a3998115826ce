package io.stagecoach.node.jobs;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * "Nodes" made of network namespaces for tests: one namespace per node, each joined by a veth pair to a bridge in a
 * hub namespace of their own, with an address of a random 10.x.y.0/24 that exists only inside those namespaces.
 * {@link #close()} kills every process left in them and deletes them; a run killed before that leaves namespaces
 * named {@value #PREFIX}..., which {@link #sweepLeftovers()} removes where no process is left in them.
 */
final class TestNetwork implements AutoCloseable
{
    /** Start of every namespace's name. */
    static final String PREFIX = "sctest-";

    private final String id;
    private final String subnet;
    private final List<String> namespaces = new ArrayList<>();
    private final List<String> addresses = new ArrayList<>();

    private TestNetwork(final String id, final String subnet)
    {
        this.id = id;
        this.subnet = subnet;
    }

    /**
     * @param nodes how many nodes.
     * @return the network, every node up with its address.
     * @throws IOException where a command fails (what was made is removed).
     */
    static TestNetwork create(final int nodes) throws IOException, InterruptedException
    {
        final ThreadLocalRandom random = ThreadLocalRandom.current();
        final TestNetwork network = new TestNetwork(Integer.toHexString(random.nextInt(0x10000, 0x100000)),
            "10." + random.nextInt(64, 250) + "." + random.nextInt(1, 250));
        try
        {
            network.build(nodes);
            return network;
        }
        catch (final IOException | InterruptedException | RuntimeException ex)
        {
            network.close();
            throw ex;
        }
    }

    private void build(final int nodes) throws IOException, InterruptedException
    {
        final String hub = PREFIX + id + "-hub";
        run("ip", "netns", "add", hub);
        namespaces.add(hub);
        run("ip", "-n", hub, "link", "add", "br0", "type", "bridge");
        run("ip", "-n", hub, "link", "set", "br0", "up");
        for (int i = 0; i < nodes; i++)
        {
            final String name = PREFIX + id + "-" + (char)('a' + i);
            run("ip", "netns", "add", name);
            namespaces.add(name);
            final String inside = "sc" + id + "n" + i;
            final String outside = "sc" + id + "h" + i;
            run("ip", "link", "add", inside, "netns", name, "type", "veth", "peer", "name", outside, "netns", hub);
            run("ip", "-n", hub, "link", "set", outside, "master", "br0", "up");
            final String address = subnet + "." + (i + 1);
            run("ip", "-n", name, "addr", "add", address + "/24", "dev", inside);
            run("ip", "-n", name, "link", "set", inside, "up");
            run("ip", "-n", name, "link", "set", "lo", "up");
            addresses.add(address);
        }
    }

    /**
     * @param node from 0.
     * @return its namespace's name.
     */
    String namespace(final int node)
    {
        return namespaces.get(node + 1);
    }

    /**
     * @param node from 0.
     * @return its address.
     */
    String address(final int node)
    {
        return addresses.get(node);
    }

    /**
     * @param node    from 0.
     * @param command what to run in the node's namespace.
     * @return the command prefixed with {@code ip netns exec}.
     */
    List<String> inNode(final int node, final List<String> command)
    {
        final List<String> full = new ArrayList<>(List.of("ip", "netns", "exec", namespace(node)));
        full.addAll(command);
        return full;
    }

    /**
     * @param node from 0.
     * @return the pids of the processes in the node's namespace.
     */
    List<Long> pids(final int node) throws IOException, InterruptedException
    {
        final List<Long> pids = new ArrayList<>();
        for (final String line : run("ip", "netns", "pids", namespace(node)).split("\n"))
        {
            if (!line.isBlank())
            {
                pids.add(Long.parseLong(line.strip()));
            }
        }
        return pids;
    }

    /**
     * Drops a share of the packets that enter and leave a node, chosen at random (nftables' numgen), whatever their
     * protocol.
     *
     * @param node    from 0.
     * @param table   a name for the rules' table.
     * @param percent how many in a hundred.
     */
    void dropPercent(final int node, final String table, final int percent) throws IOException, InterruptedException
    {
        final String ns = namespace(node);
        run("ip", "netns", "exec", ns, "nft", "add", "table", "inet", table);
        for (final String hook : List.of("input", "output"))
        {
            run("ip", "netns", "exec", ns, "nft", "add", "chain", "inet", table, hook,
                "{ type filter hook " + hook + " priority 0 ; }");
            run("ip", "netns", "exec", ns, "nft", "add", "rule", "inet", table, hook, "meta", "iifname", "!=", "lo",
                "meta", "oifname", "!=", "lo", "numgen", "random", "mod", "100", "<", Integer.toString(percent),
                "counter", "drop");
        }
    }

    void removeTable(final int node, final String table)
    {
        try
        {
            run("ip", "netns", "exec", namespace(node), "nft", "delete", "table", "inet", table);
        }
        catch (final IOException | InterruptedException ex)
        {
            System.err.println("could not delete nftables table " + table + ": " + ex.getMessage());
        }
    }

    /**
     * Installs a Debian package where its command is missing.
     *
     * @param command the command the test needs.
     * @param debianPackage the package that brings it.
     */
    static void requireCommand(final String command, final String debianPackage)
        throws IOException, InterruptedException
    {
        if (0 == new ProcessBuilder("sh", "-c", "command -v " + command).start().waitFor())
        {
            return;
        }
        final ProcessBuilder install = new ProcessBuilder("apt-get", "install", "-y", "-q", "--no-install-recommends",
            debianPackage).redirectErrorStream(true);
        install.environment().put("DEBIAN_FRONTEND", "noninteractive");
        Process process = install.start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (process.waitFor() != 0)
        {
            run("apt-get", "update", "-q");
            process = install.start();
            output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (process.waitFor() != 0)
            {
                throw new IOException("could not install " + debianPackage + " for " + command + ": " + output);
            }
        }
    }

    public void close()
    {
        for (final String namespace : namespaces)
        {
            killAll(namespace);
        }
        for (final String namespace : namespaces)
        {
            try
            {
                run("ip", "netns", "del", namespace);
            }
            catch (final IOException | InterruptedException ex)
            {
                System.err.println("could not delete network namespace " + namespace + ": " + ex.getMessage());
            }
        }
    }

    /**
     * Removes namespaces of earlier runs that no process uses any more.
     */
    static void sweepLeftovers() throws IOException, InterruptedException
    {
        for (final String line : run("ip", "netns", "list").split("\n"))
        {
            final String name = line.strip().split("\\s+")[0];
            if (name.startsWith(PREFIX) && run("ip", "netns", "pids", name).isBlank())
            {
                run("ip", "netns", "del", name);
            }
        }
    }

    private static void killAll(final String namespace)
    {
        try
        {
            for (final String pid : run("ip", "netns", "pids", namespace).split("\n"))
            {
                if (!pid.isBlank())
                {
                    ProcessHandle.of(Long.parseLong(pid.strip())).ifPresent(ProcessHandle::destroyForcibly);
                }
            }
        }
        catch (final IOException | InterruptedException | RuntimeException ex)
        {
            System.err.println("could not end the processes of " + namespace + ": " + ex.getMessage());
        }
    }

    static String run(final String... command) throws IOException, InterruptedException
    {
        final Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        final String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(30, TimeUnit.SECONDS))
        {
            process.destroyForcibly();
            throw new IOException(String.join(" ", command) + " did not end within 30 s");
        }
        if (process.exitValue() != 0)
        {
            throw new IOException(String.join(" ", command) + " failed (" + process.exitValue() + "): " + output);
        }
        return output;
    }
}
