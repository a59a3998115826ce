package io.stagecoach.node.jobs;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.stagecoach.node.agent.ClusterStatus;
import io.stagecoach.node.agent.ControlClient;
import io.stagecoach.node.agent.StateFolder;
import io.stagecoach.node.cli.StagecoachCommand;
import io.stagecoach.node.launch.LaunchContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Jobs across three "nodes", each a network namespace with an agent of its own (a real process, Artery over TLS with
 * the cluster's key, the node's media driver), joined by veth pairs to a bridge: a 4-rank job on two of them
 * exchanges checksummed messages between all pairs in host and emulated-device memory, both directions; then an
 * agent whose ranks wait is killed, and the ranks of the other node must be told within 5 s that its ranks died,
 * naming the node, the submitter must exit non-zero naming it, and no rank may be left on the surviving nodes.
 * Needs root (network namespaces); every namespace, process and file it made is removed, also when it fails.
 */
@Tag("system")
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
final class AgentJobsSystemTest
{
    private static final int NODES = 3;
    private static final int PORT = 25520;
    private static final Pattern LOST = Pattern.compile("rank (\\d) lost rank (\\d): died: its node (\\S+)");

    @TempDir
    static Path temp;

    private static TestNetwork network;
    private static final List<Process> agents = new ArrayList<>();
    private static final Path[] logs = new Path[NODES];
    private static final Path[] states = new Path[NODES];

    @BeforeAll
    static void startAgents() throws Exception
    {
        assumeTrue("root".equals(System.getProperty("user.name")), "network namespaces need root");
        TestNetwork.sweepLeftovers();
        network = TestNetwork.create(NODES);
        final String tls = clusterKey();
        for (int i = 0; i < NODES; i++)
        {
            states[i] = temp.resolve("state-" + i);
            logs[i] = temp.resolve("agent-" + i + ".log");
            final Path config = Files.writeString(temp.resolve("agent-" + i + ".conf"),
                "stagecoach.agent {\n" +
                "  node-name = node-" + (char)('a' + i) + "\n" +
                "  bind { host = \"" + network.address(i) + "\", port = " + PORT + " }\n" +
                "  seeds = [\"" + network.address(0) + ":" + PORT + "\"]\n" +
                "  state-dir = \"" + states[i] + "\"\n" +
                "  gpus = 0\n" + tls +
                "}\n");
            agents.add(start(network.inNode(i, agentCommand(config)), logs[i]));
        }
        awaitMembers(NODES, 120);
    }

    @AfterAll
    static void removeEverything()
    {
        agents.forEach(Process::destroyForcibly);
        if (null != network)
        {
            network.close();
        }
    }

    @Test
    @Order(1)
    void shouldExchangeChecksummedMessagesBetweenAllPairsOfRanksOnTwoNodes() throws Exception
    {
        final Path out = temp.resolve("job.out");
        final Process job = start(network.inNode(0, runCommand("node-a:2,node-b:2", "3")), out);
        assertTrue(job.waitFor(240, TimeUnit.SECONDS), () -> "the job did not end in 240 s:\n" + read(out));
        final String output = read(out);
        assertEquals(0, job.exitValue(), output);
        for (int rank = 0; rank < 4; rank++)
        {
            assertTrue(output.contains("RANK " + rank + " node node-" + (rank < 2 ? 'a' : 'b') + " pairs=9 wrong=0"),
                "rank " + rank + ":\n" + output);
            assertTrue(output.contains("RANK " + rank + " ends without a line end"), "rank " + rank + ":\n" + output);
        }
        assertTrue(!output.contains("lost rank"), output);
        assertNoRanksLeft(0);
        assertNoRanksLeft(1);
    }

    @Test
    @Order(2)
    void shouldDeliverTenThousandMessagesInOrderAndUnchangedAcrossALinkThatDropsFivePercent() throws Exception
    {
        TestNetwork.requireCommand("nft", "nftables");
        final String table = "sctest" + ProcessHandle.current().pid();
        network.dropPercent(1, table, 5);
        try
        {
            final Path out = temp.resolve("lossy-job.out");
            final Process job = start(network.inNode(0, runCommand("node-a:1,node-b:1", 2,
                SequenceRank.class.getName(), "5000", "16384")), out);
            assertTrue(job.waitFor(240, TimeUnit.SECONDS), () -> "the job did not end in 240 s:\n" + read(out));
            final String output = read(out);
            assertEquals(0, job.exitValue(), output);
            assertTrue(output.contains("SEQUENCE from 0 received=5000 wrong=0") &&
                output.contains("SEQUENCE from 1 received=5000 wrong=0"), output);
            final String dropped = TestNetwork.run(network.inNode(1, List.of("nft", "list", "table", "inet",
                table)).toArray(String[]::new));
            assertTrue(dropped.matches("(?s).*packets [1-9]\\d* bytes.*"), "nothing was dropped:\n" + dropped);
            System.out.println("5% loss: " + output.lines().filter(line -> line.startsWith("SEQUENCE"))
                .toList() + "\n" + dropped);
        }
        finally
        {
            network.removeTable(1, table);
        }
    }

    @Test
    @Order(3)
    void shouldFailTheJobWithinFiveSecondsNamingTheNodeWhoseAgentDied() throws Exception
    {
        final Path out = temp.resolve("failing-job.out");
        final Process job = start(network.inNode(0, runCommand("node-a:2,node-b:2", "1", "hang")), out);
        awaitOutput(out, text -> count(text, " waiting") == 4, 180, job);
        final long killedNs = System.nanoTime();
        agents.get(1).destroyForcibly();
        awaitOutput(out, text -> count(text, "died: its node node-b") >= 2, 10, null);
        final long toldMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedNs);
        assertTrue(job.waitFor(30, TimeUnit.SECONDS), () -> "the submitter did not end:\n" + read(out));
        final String output = read(out);
        assertTrue(toldMs <= 5000, "the ranks of node a were told " + toldMs + " ms after the kill:\n" + output);
        final Matcher lost = LOST.matcher(output);
        assertTrue(lost.find() && lost.group(3).equals("node-b"), output);
        assertNotEquals(0, job.exitValue(), output);
        assertTrue(output.contains("job ") && output.contains("failed") && output.contains("node node-b"), output);
        assertNoRanksLeft(0);
        assertNoRanksLeft(2);
        final long downedMs = awaitDowned("node-b", 30) - killedNs;
        System.out.println("ranks told of the lost node " + toldMs + " ms after its agent was killed; the node " +
            "was downed and removed from the cluster after " + TimeUnit.NANOSECONDS.toMillis(downedMs) + " ms");
    }

    /**
     * @return when the split-brain resolver had downed the node and the cluster removed it, as node a sees it.
     */
    private static long awaitDowned(final String node, final int seconds) throws Exception
    {
        final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        String last = "no answer";
        while (System.nanoTime() - deadlineNs < 0)
        {
            last = ControlClient.request(StateFolder.socketOf(states[0]), "status");
            if (ClusterStatus.parse(last).members().stream().noneMatch(member -> node.equals(member.node())))
            {
                return System.nanoTime();
            }
            Thread.sleep(100);
        }
        throw new AssertionError(node + " was not removed within " + seconds + " s: " + last);
    }

    private static void assertNoRanksLeft(final int node) throws Exception
    {
        final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        List<String> ranks = List.of();
        while (System.nanoTime() - deadlineNs < 0)
        {
            ranks = new ArrayList<>();
            for (final long pid : network.pids(node))
            {
                final String line = ProcessHandle.of(pid).flatMap(process -> process.info().commandLine()).orElse("");
                if (line.contains(AllPairsRank.class.getName()))
                {
                    ranks.add(pid + ": " + line);
                }
            }
            if (ranks.isEmpty())
            {
                return;
            }
            Thread.sleep(200);
        }
        throw new AssertionError("ranks left on node " + node + ": " + ranks);
    }

    private static List<String> runCommand(final String hosts, final String... arguments)
    {
        final List<String> all = new ArrayList<>(List.of(AllPairsRank.class.getName()));
        all.addAll(List.of(arguments));
        return runCommand(hosts, 4, all.toArray(String[]::new));
    }

    private static List<String> runCommand(final String hosts, final int size, final String... program)
    {
        final List<String> command = java();
        command.addAll(List.of(StagecoachCommand.class.getName(), "run", "-n", Integer.toString(size), "-H", hosts,
            "--oversubscribe", "--agent-state", states[0].toString(), "--timeout", "200"));
        command.addAll(List.of(program));
        return command;
    }

    private static List<String> agentCommand(final Path config)
    {
        final List<String> command = java();
        command.addAll(List.of(StagecoachCommand.class.getName(), "agent", "--config", config.toString()));
        return command;
    }

    private static List<String> java()
    {
        final List<String> command = new ArrayList<>(List.of(
            Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        command.addAll(LaunchContext.DEFAULT_JVM_OPTIONS);
        command.addAll(List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
            "-cp", System.getProperty("java.class.path")));
        return command;
    }

    private static Process start(final List<String> command, final Path log) throws IOException
    {
        final ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
            .redirectOutput(log.toFile());
        builder.environment().put("STAGECOACH_LOG_LEVEL", "INFO");
        return builder.start();
    }

    private static void awaitMembers(final int members, final int seconds) throws Exception
    {
        final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        String last = "no answer";
        while (System.nanoTime() - deadlineNs < 0)
        {
            for (int i = 0; i < agents.size(); i++)
            {
                final int index = i;
                assertTrue(agents.get(i).isAlive(), () -> "agent " + index + " ended:\n" + read(logs[index]));
            }
            try
            {
                last = ControlClient.request(StateFolder.socketOf(states[0]), "status");
                final ClusterStatus status = ClusterStatus.parse(last);
                if (status.members().stream().filter(member -> "Up".equals(member.status())).count() == members)
                {
                    return;
                }
            }
            catch (final IOException ex)
            {
                last = ex.toString();
            }
            Thread.sleep(250);
        }
        throw new AssertionError("the agents did not form a cluster of " + members + " in " + seconds + " s: " + last +
            "\n" + read(logs[0]) + "\n" + read(logs[1]));
    }

    private static void awaitOutput(final Path file, final Predicate<String> wanted, final int seconds,
        final Process process) throws Exception
    {
        final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (System.nanoTime() - deadlineNs < 0)
        {
            if (wanted.test(read(file)))
            {
                return;
            }
            if (null != process && !process.isAlive())
            {
                break;
            }
            Thread.sleep(100);
        }
        throw new AssertionError("waited " + seconds + " s for " + file + ":\n" + read(file));
    }

    private static int count(final String text, final String part)
    {
        int count = 0;
        for (int at = text.indexOf(part); at >= 0; at = text.indexOf(part, at + 1))
        {
            count++;
        }
        return count;
    }

    private static String clusterKey() throws IOException, InterruptedException
    {
        final Path password = temp.resolve("cluster.password");
        Files.writeString(password, "cluster-" + System.nanoTime() + "\n");
        final Path store = temp.resolve("cluster.p12");
        final String keytool = Path.of(System.getProperty("java.home"), "bin", "keytool").toString();
        final Process process = new ProcessBuilder(keytool, "-genkeypair", "-alias", "agent", "-keyalg", "EC",
            "-groupname", "secp256r1", "-dname", "CN=cluster", "-validity", "2", "-storetype", "PKCS12",
            "-keystore", store.toString(), "-storepass:file", password.toString(), "-keypass:file",
            password.toString()).redirectErrorStream(true).start();
        final String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(60, TimeUnit.SECONDS) && process.exitValue() == 0, output);
        for (final Path file : List.of(password, store))
        {
            Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        }
        return "  tls { key-store = \"" + store + "\", password-file = \"" + password + "\" }\n";
    }

    private static String read(final Path file)
    {
        try
        {
            return Files.exists(file) ? Files.readString(file) : "(no " + file + ")";
        }
        catch (final IOException ex)
        {
            return ex.toString();
        }
    }
}
