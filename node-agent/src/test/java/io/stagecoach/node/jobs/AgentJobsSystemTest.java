package io.stagecoach.node.jobs;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.stagecoach.benchmarks.omb.Bandwidth;
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
import org.openqa.selenium.json.Json;

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
    private static final int DASHBOARD_PORT = 25580;
    private static final Pattern LOST = Pattern.compile("rank (\\d) lost rank (\\d): died: its node (\\S+)");

    @TempDir
    static Path temp;

    private static TestNetwork network;
    private static final List<Process> agents = new ArrayList<>();
    private static final Path[] logs = new Path[NODES];
    private static final Path[] states = new Path[NODES];
    private static Path token;

    @BeforeAll
    static void startAgents() throws Exception
    {
        assumeTrue("root".equals(System.getProperty("user.name")), "network namespaces need root");
        TestNetwork.sweepLeftovers();
        network = TestNetwork.create(NODES);
        final String tls = clusterKey();
        token = temp.resolve("dashboard.token");
        Files.writeString(token, "token-" + System.nanoTime() + "-" + ProcessHandle.current().pid() + "\n");
        Files.setPosixFilePermissions(token, PosixFilePermissions.fromString("rw-------"));
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
                "  gpus = 0\n" + tls + (i == 0 ? "  dashboard { port = " + DASHBOARD_PORT + ", address = \"" +
                    network.address(0) + "\", token-file = \"" + token + "\" }\n" : "") +
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
    void shouldShowTheRanksOfEveryNodeLiveOnTheDashboardOfTheAgentTheJobWasSubmittedTo() throws Exception
    {
        assertTrue(probe("api/jobs", false).startsWith("STATUS 401"), "the dashboard off loopback asks for the token");
        final Set<String> before = jobsListed();
        final Path out = temp.resolve("dashboard-job.out");
        final Process job = start(network.inNode(0, runCommand("node-b:1,node-c:1", 2, Bandwidth.class.getName(),
            "D", "D", "--min-size", "1048576", "--max-size", "1048576", "--iterations", "30", "--skip", "0",
            "--warm-up", "0")), out);
        try
        {
            final String jobId = awaitJob(before, job, out);
            final Map<String, Object> live = awaitFrame(jobId, frame -> "running".equals(frame.get("state")) &&
                lanes(frame).containsAll(Set.of("0:D2H", "0:WIRE", "1:H2D")), job, out);
            assertEquals(Map.of("0", "node-b", "1", "node-c"), live.get("nodes"), live.toString());
            assertTrue(job.waitFor(240, TimeUnit.SECONDS), () -> "the job did not end in 240 s:\n" + read(out));
            assertEquals(0, job.exitValue(), read(out));
            final Map<String, Object> ended = awaitFrame(jobId, frame -> "ended".equals(frame.get("state")), null, out);
            final Map<?, ?> counters = (Map<?, ?>)ended.get("counters");
            assertEquals(0, ((Number)counters.get("droppedByRanks")).intValue(), counters.toString());
            assertTrue(((Number)counters.get("records")).intValue() > 0, counters.toString());
            final double nowUs = ((Number)ended.get("nowUs")).doubleValue();
            for (final Object bar : (List<?>)ended.get("bars"))
            {
                final double startUs = ((Number)((List<?>)bar).get(4)).doubleValue();
                assertTrue(startUs >= 0 && startUs <= nowUs, "bar " + bar + " outside the job's [0, " + nowUs + "] us");
            }
            final String export = probe("api/jobs/" + jobId + "/trace.json", true);
            assertTrue(export.startsWith("STATUS 200"), export);
            checkExport(export.substring(export.indexOf('\n') + 1));
            System.out.println("dashboard of a job on node-b and node-c at node-a: lanes " + lanes(ended) +
                ", counters " + ended.get("counters"));
        }
        finally
        {
            job.destroyForcibly();
        }
    }

    @Test
    @Order(3)
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
    @Order(4)
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

    private static Set<String> jobsListed() throws Exception
    {
        final String answer = probe("api/jobs", true);
        assertTrue(answer.startsWith("STATUS 200"), answer);
        final Set<String> jobs = new TreeSet<>();
        final Matcher listed = Pattern.compile("\"([^\"]+)\"").matcher(answer.substring(answer.indexOf('['),
            answer.indexOf(']') + 1));
        while (listed.find())
        {
            jobs.add(listed.group(1));
        }
        return jobs;
    }

    private static String awaitJob(final Set<String> before, final Process job, final Path out) throws Exception
    {
        final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        Set<String> listed = Set.of();
        while (System.nanoTime() - deadlineNs < 0 && job.isAlive())
        {
            listed = jobsListed();
            listed.removeAll(before);
            if (!listed.isEmpty())
            {
                return listed.iterator().next();
            }
            Thread.sleep(200);
        }
        throw new AssertionError("no new job on the dashboard besides " + before + "\n" + read(out));
    }

    private static Map<String, Object> awaitFrame(final String jobId, final Predicate<Map<String, Object>> wanted,
        final Process job, final Path out) throws Exception
    {
        final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        String last = "";
        while (System.nanoTime() - deadlineNs < 0 && (null == job || job.isAlive()))
        {
            last = probe("api/jobs/" + jobId + "/events", true);
            final String[] lines = last.split("\n", 2);
            if (lines.length == 2 && "STATUS 200".equals(lines[0]))
            {
                final Map<String, Object> frame = new Json().toType(lines[1], Json.MAP_TYPE);
                if (wanted.test(frame))
                {
                    return frame;
                }
            }
            Thread.sleep(200);
        }
        throw new AssertionError("no such update of job " + jobId + "; the last: " + last + "\n" + read(out));
    }

    private static Set<String> lanes(final Map<String, Object> frame)
    {
        final List<String> names = new ArrayList<>();
        for (final Object name : (List<?>)frame.get("stageNames"))
        {
            names.add((String)name);
        }
        final Set<String> lanes = new TreeSet<>();
        for (final Object lane : (List<?>)frame.get("lanes"))
        {
            final List<?> pair = (List<?>)lane;
            lanes.add(((Number)pair.get(0)).intValue() + ":" + names.get(((Number)pair.get(1)).intValue()));
        }
        return lanes;
    }

    @SuppressWarnings("unchecked")
    private static void checkExport(final String json)
    {
        final Map<String, Object> trace = new Json().toType(json, Json.MAP_TYPE);
        final Set<String> processes = new HashSet<>();
        final Set<String> slices = new HashSet<>();
        for (final Map<String, Object> event : (List<Map<String, Object>>)trace.get("traceEvents"))
        {
            if ("process_name".equals(event.get("name")))
            {
                processes.add((String)((Map<String, Object>)event.get("args")).get("name"));
            }
            if ("X".equals(event.get("ph")))
            {
                slices.add(((Number)event.get("pid")).intValue() - 1 + ":" + event.get("name"));
            }
        }
        assertTrue(processes.containsAll(Set.of("rank 0", "rank 1")), processes.toString());
        assertTrue(slices.containsAll(Set.of("0:D2H", "0:WIRE", "1:H2D")), slices.toString());
    }

    /**
     * @return what {@link DashboardProbe} read from node-a's dashboard, from inside node-a's namespace.
     */
    private static String probe(final String path, final boolean withToken) throws Exception
    {
        final List<String> command = java();
        command.addAll(List.of(DashboardProbe.class.getName(),
            "http://" + network.address(0) + ":" + DASHBOARD_PORT + "/" + path, withToken ? token.toString() : "-"));
        final Process process = new ProcessBuilder(network.inNode(0, command)).redirectErrorStream(true).start();
        final String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(30, TimeUnit.SECONDS), "the probe did not end");
        return output.strip();
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
