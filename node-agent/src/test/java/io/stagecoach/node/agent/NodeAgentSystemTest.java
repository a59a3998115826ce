package io.stagecoach.node.agent;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import io.stagecoach.node.cli.StagecoachCommand;
import io.stagecoach.node.launch.LaunchContext;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Two agent processes on 127.0.0.1 form a cluster that {@code stagecoach agent status} shows from either side, and
 * that, without the cluster key, runs no part of one agent's job on the other; one stopped by SIGTERM leaves it, exits
 * 0 and removes its socket, and the other sees it gone.
 */
@Tag("system")
@Timeout(180)
class NodeAgentSystemTest
{
    @Test
    void shouldFormAClusterOfTwoAgentsAndLeaveItOnSigterm(@TempDir final Path temp) throws Exception
    {
        final int[] ports = freePorts(2);
        final String seeds = "[\"127.0.0.1:" + ports[0] + "\", \"127.0.0.1:" + ports[1] + "\"]";
        final List<Process> processes = new ArrayList<>();
        final Path[] states = new Path[2];
        final Path[] logs = new Path[2];
        final Path[] configs = new Path[2];
        try
        {
            for (int i = 0; i < 2; i++)
            {
                states[i] = temp.resolve("state-" + i);
                logs[i] = temp.resolve("agent-" + i + ".log");
                configs[i] = config(temp, i, ports[i], seeds, states[i], i == 0 ? "auto" : "2", "");
                processes.add(start(configs[i], logs[i]));
            }

            for (int i = 0; i < 2; i++)
            {
                final ClusterStatus status = awaitStatus(states[i], 60, processes, logs,
                    s -> s.members().size() == 2 && s.members().stream().allMatch(m -> "Up".equals(m.status())));
                assertEquals("node-" + i, status.node());
                assertEquals(List.of("node-0", "node-1"), status.members().stream().map(MemberView::node).toList());
                assertEquals(List.of(0, 2), status.members().stream().map(MemberView::gpus).toList());
            }
            final Path socket0 = StateFolder.socketOf(states[0]);
            assertEquals("rw-------", PosixFilePermissions.toString(
                Files.getPosixFilePermissions(socket0, LinkOption.NOFOLLOW_LINKS)));
            assertEquals("rwx------", PosixFilePermissions.toString(
                Files.getPosixFilePermissions(states[0], LinkOption.NOFOLLOW_LINKS)));
            final String table = statusCommand("--state", states[1].toString());
            assertTrue(table.contains("node-0") && table.contains("node-1") && table.contains("Up"), table);
            final ClusterStatus json = ClusterStatus.parse(statusCommand("--json", "--config", configs[0].toString()));
            assertEquals("node-0", json.node());
            assertEquals(2, json.members().size());

            // Without the cluster key another agent's job gets no ranks here: on loopback, anyone could run that one.
            final StringWriter out = new StringWriter();
            final StringWriter err = new StringWriter();
            final CommandLine line = StagecoachCommand.commandLine();
            line.setOut(new PrintWriter(out));
            line.setErr(new PrintWriter(err));
            assertEquals(1, line.execute("run", "-n", "2", "-H", "node-0:1,node-1:1", "--oversubscribe",
                "--agent-state", states[0].toString(), "--timeout", "60", "io.stagecoach.node.launch.ExchangeRank"),
                () -> out + "\n" + err);
            assertTrue(err.toString().contains("node node-1: without the cluster key (tls) this agent runs only the " +
                "ranks of jobs submitted to it"), err::toString);
            assertTrue(read(logs[1]).contains("refused a part of job"), () -> read(logs[1]));

            final long stopNs = System.nanoTime();
            processes.get(0).destroy();
            assertTrue(processes.get(0).waitFor(15, TimeUnit.SECONDS), () -> "agent 0 ends within 15 s of SIGTERM\n" +
                read(logs[0]));
            final long stopMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - stopNs);
            assertEquals(0, processes.get(0).exitValue(), () -> read(logs[0]));
            assertFalse(Files.exists(socket0, LinkOption.NOFOLLOW_LINKS), "agent 0's socket is removed");

            final ClusterStatus after = awaitStatus(states[1], 30, List.of(processes.get(1)),
                new Path[] { logs[1], logs[0] }, s -> s.members().size() == 1);
            assertEquals("node-1", after.members().get(0).node());
            System.out.println("agent 0 stopped in " + stopMs + " ms");
        }
        finally
        {
            for (final Process process : processes)
            {
                process.destroyForcibly();
                process.waitFor(10, TimeUnit.SECONDS);
            }
        }
    }

    /**
     * An agent with {@code dashboard.port} serves the live dashboard of the jobs submitted to it, on loopback, with the token it writes into its state folder.
     */
    @Test
    void shouldServeTheLiveDashboardOfTheJobsItRuns(@TempDir final Path temp) throws Exception
    {
        final int[] ports = freePorts(2);
        final Path state = temp.resolve("state");
        final Path log = temp.resolve("agent.log");
        final Path config = config(temp, 0, ports[0], "[\"127.0.0.1:" + ports[0] + "\"]", state, "0",
            "  dashboard.port = " + ports[1] + "\n");
        final Process agent = start(config, log);
        try
        {
            awaitStatus(state, 60, List.of(agent), new Path[] { log },
                s -> s.members().size() == 1 && "Up".equals(s.members().get(0).status()));
            final StringWriter out = new StringWriter();
            final StringWriter err = new StringWriter();
            final CommandLine line = StagecoachCommand.commandLine();
            line.setOut(new PrintWriter(out));
            line.setErr(new PrintWriter(err));
            assertEquals(0, line.execute("run", "-n", "2", "-H", "node-0:2", "--oversubscribe", "--agent-state",
                state.toString(), "--timeout", "60", "io.stagecoach.node.launch.ExchangeRank"), err::toString);
            assertTrue(out.toString().contains("rank 1 of 2 got: hello from 0; hello from 1"), out::toString);
            final java.net.URI api = java.net.URI.create("http://127.0.0.1:" + ports[1] + "/api/jobs");
            final java.net.http.HttpClient client = java.net.http.HttpClient.newHttpClient();
            assertEquals(401, client.send(java.net.http.HttpRequest.newBuilder(api).build(),
                java.net.http.HttpResponse.BodyHandlers.ofString()).statusCode(), "a token on loopback too");
            final Path tokenFile = state.resolve("dashboard.token");
            assertEquals("rw-------", PosixFilePermissions.toString(
                Files.getPosixFilePermissions(tokenFile)));
            final java.net.http.HttpResponse<String> jobs = client.send(java.net.http.HttpRequest.newBuilder(api)
                .header("Authorization", "Bearer " + Files.readString(tokenFile).strip()).build(),
                java.net.http.HttpResponse.BodyHandlers.ofString());
            assertEquals(200, jobs.statusCode(), jobs::body);
            assertTrue(jobs.body().contains("\"jobs\":[\"node-0-1-"), jobs::body);
            assertTrue(read(log).contains("the live dashboard of the jobs submitted here and of the ranks running here is at " +
                "http://127.0.0.1:" +
                ports[1]), () -> read(log));
        }
        finally
        {
            agent.destroy();
            agent.waitFor(20, TimeUnit.SECONDS);
            agent.destroyForcibly();
        }
    }

    private static Process start(final Path config, final Path log) throws IOException
    {
        final List<String> command = new ArrayList<>(List.of(
            Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        command.addAll(LaunchContext.DEFAULT_JVM_OPTIONS);
        command.addAll(List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
            "-cp", System.getProperty("java.class.path"),
            StagecoachCommand.class.getName(), "agent", "--config", config.toString()));
        final ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
            .redirectOutput(log.toFile());
        builder.environment().put("STAGECOACH_LOG_LEVEL", "INFO");
        return builder.start();
    }

    /**
     * Two agents with the cluster's key form a cluster over TLS; a third one, with a key of its own, names the first
     * as its seed but never joins: the first two see each other only, and it sees only itself.
     */
    @Test
    void shouldKeepAnAgentWithoutTheClusterKeyOut(@TempDir final Path temp) throws Exception
    {
        final String[] keys = { tls(temp, "cluster"), tls(temp, "intruder") };
        final int[] ports = freePorts(3);
        final String seeds = "[\"127.0.0.1:" + ports[0] + "\"]";
        final List<Process> processes = new ArrayList<>();
        final Path[] states = new Path[3];
        final Path[] logs = new Path[3];
        try
        {
            for (int i = 0; i < 3; i++)
            {
                states[i] = temp.resolve("state-" + i);
                logs[i] = temp.resolve("agent-" + i + ".log");
                processes.add(start(config(temp, i, ports[i], seeds, states[i], "0", keys[i < 2 ? 0 : 1]), logs[i]));
            }
            final ClusterStatus members = awaitStatus(states[0], 60, processes, logs,
                s -> s.members().size() == 2 && s.members().stream().allMatch(m -> "Up".equals(m.status())));
            assertEquals(List.of("node-0", "node-1"), members.members().stream().map(MemberView::node).toList());
            Thread.sleep(5_000);
            final ClusterStatus later = ClusterStatus.parse(ControlClient.request(StateFolder.socketOf(states[0]),
                "status"));
            assertEquals(List.of("node-0", "node-1"), later.members().stream().map(MemberView::node).toList(),
                "the agent without the cluster's key stays out");
            final ClusterStatus outside = ClusterStatus.parse(ControlClient.request(StateFolder.socketOf(states[2]),
                "status"));
            assertTrue(outside.members().stream().noneMatch(m -> m.node().equals("node-0")),
                "the agent without the key is no member of the cluster: " + outside.members());
            assertTrue(read(logs[0]).contains("SSL") || read(logs[0]).contains("TLS") ||
                read(logs[0]).contains("certificate") || read(logs[2]).contains("SSL"),
                () -> "a refused handshake is logged:\n" + read(logs[0]) + read(logs[2]));
        }
        finally
        {
            for (final Process process : processes)
            {
                process.destroyForcibly();
                process.waitFor(10, TimeUnit.SECONDS);
            }
        }
    }

    private static Path config(final Path temp, final int index, final int port, final String seeds, final Path state,
        final String gpus, final String tls) throws IOException
    {
        return Files.writeString(temp.resolve("agent-" + index + ".conf"),
            "stagecoach.agent {\n" +
            "  node-name = node-" + index + "\n" +
            "  bind { host = \"127.0.0.1\", port = " + port + " }\n" +
            "  seeds = " + seeds + "\n" +
            "  state-dir = \"" + state + "\"\n" +
            "  gpus = " + gpus + "\n" + tls +
            "}\n");
    }

    /**
     * @return the configuration lines of a new cluster key: a PKCS12 key store with one EC key made by keytool, and
     * its password file, both 0600.
     */
    private static String tls(final Path temp, final String name) throws IOException, InterruptedException
    {
        final Path password = temp.resolve(name + ".password");
        Files.writeString(password, "secret-of-" + name + "-" + System.nanoTime() + "\n");
        final Path store = temp.resolve(name + ".p12");
        final String keytool = Path.of(System.getProperty("java.home"), "bin", "keytool").toString();
        final Process process = new ProcessBuilder(keytool, "-genkeypair", "-alias", "agent", "-keyalg", "EC",
            "-groupname", "secp256r1", "-dname", "CN=" + name, "-validity", "2", "-storetype", "PKCS12",
            "-keystore", store.toString(), "-storepass:file", password.toString(), "-keypass:file",
            password.toString()).redirectErrorStream(true).start();
        final String output = new String(process.getInputStream().readAllBytes());
        assertTrue(process.waitFor(60, TimeUnit.SECONDS) && process.exitValue() == 0, output);
        for (final Path file : List.of(password, store))
        {
            Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        }
        return "  tls { key-store = \"" + store + "\", password-file = \"" + password + "\" }\n";
    }

    private static ClusterStatus awaitStatus(final Path state, final int seconds, final List<Process> processes,
        final Path[] logs, final Predicate<ClusterStatus> wanted) throws InterruptedException
    {
        final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        String last = "no answer";
        while (System.nanoTime() - deadlineNs < 0)
        {
            for (int i = 0; i < processes.size(); i++)
            {
                final int index = i;
                assertTrue(processes.get(i).isAlive(), () -> "an agent ended early:\n" + read(logs[index]));
            }
            try
            {
                last = ControlClient.request(StateFolder.socketOf(state), "status");
                final ClusterStatus status = ClusterStatus.parse(last);
                if (wanted.test(status))
                {
                    return status;
                }
            }
            catch (final IOException ex)
            {
                last = ex.toString();
            }
            Thread.sleep(250);
        }
        final StringBuilder output = new StringBuilder();
        for (final Path log : logs)
        {
            output.append('\n').append(log).append(":\n").append(read(log));
        }
        throw new AssertionError("waited " + seconds + " s at " + state + ", last answer: " + last + output);
    }

    private static String statusCommand(final String... args)
    {
        final StringWriter out = new StringWriter();
        final StringWriter err = new StringWriter();
        final CommandLine line = StagecoachCommand.commandLine();
        line.setOut(new PrintWriter(out));
        line.setErr(new PrintWriter(err));
        final List<String> all = new ArrayList<>(List.of("agent", "status"));
        all.addAll(List.of(args));
        final int status = line.execute(all.toArray(String[]::new));
        assertEquals(0, status, err::toString);
        return out.toString();
    }

    private static int[] freePorts(final int count) throws IOException
    {
        final int[] ports = new int[count];
        final List<ServerSocket> sockets = new ArrayList<>();
        try
        {
            for (int i = 0; i < count; i++)
            {
                final ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                sockets.add(socket);
                ports[i] = socket.getLocalPort();
            }
        }
        finally
        {
            for (final ServerSocket socket : sockets)
            {
                socket.close();
            }
        }
        return ports;
    }

    private static String read(final Path file)
    {
        try
        {
            return Files.readString(file);
        }
        catch (final IOException ex)
        {
            return ex.toString();
        }
    }
}
