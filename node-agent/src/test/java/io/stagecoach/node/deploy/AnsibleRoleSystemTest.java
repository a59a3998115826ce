package io.stagecoach.node.deploy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.stagecoach.node.agent.ClusterStatus;
import io.stagecoach.node.agent.MemberView;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The Ansible role {@code deploy/ansible/roles/stagecoach_agent}, checked for real: ansible-lint passes; the playbook,
 * applied over ssh to three nodes made of network namespaces ({@link TestNodes}), installs the bundle of
 * {@code deploy/build-agent-bundle}, the user, the key and the configuration, and a second run changes nothing; the
 * unit passes {@code systemd-analyze verify}; the agents, started as the unit would start them, form one cluster
 * and run a job of three ranks, one on each node;
 * {@code --check --diff} with a changed variable and a new bundle shows the changes and changes nothing. Needs root
 * (namespaces, mounts, sshd); installs Debian's ansible, ansible-lint and OpenSSH through
 * {@code deploy/test/install-tools} and fails, saying so, where it cannot. Every namespace, process, mount and file it
 * makes goes when it ends, and those of a run killed before its end go when the next one starts.
 */
@Tag("system")
@Timeout(value = 20, unit = TimeUnit.MINUTES)
class AnsibleRoleSystemTest
{
    private static final Path MODULE = Path.of(System.getProperty("user.dir"));
    private static final Path REPO = MODULE.getParent();
    private static final Path ANSIBLE = REPO.resolve("deploy/ansible");
    private static final int NODES = 3;
    private static final int PORT = 25520;
    private static final int DASHBOARD_PORT = 25580;
    private static final String TOKEN = "/etc/stagecoach/dashboard.token";
    private static final String DASHBOARD_NODE = "node-2";
    private static final String USER = "stagecoach";
    private static final String UNIT = "/etc/systemd/system/stagecoach-agent.service";
    private static final String CONFIG = "/etc/stagecoach/agent.conf";
    private static final Pattern EXPOSURE = Pattern.compile("Overall exposure level for \\S+: ([0-9.]+) (\\w+)");

    private Path folder;
    private Shell shell;

    @BeforeEach
    void prepare() throws Exception
    {
        assumeTrue(isRoot(), "the deployment test needs root: network namespaces, mounts and sshd");
        folder = TestNodes.createFolder();
        try
        {
            shell = new Shell(Files.createDirectory(folder.resolve("logs")));
            TestNodes.removeLeftovers(shell, folder);
            final Shell.Result tools = shell.run(900, REPO.resolve("deploy/test/install-tools").toString());
            if (!tools.succeeded())
            {
                fail("the deployment test needs Debian's ansible, ansible-lint and openssh-server; " +
                    "deploy/test/install-tools could not install them (exit " + tools.exitCode() + "):\n" +
                    tools.output());
            }
        }
        catch (final Exception | AssertionError ex)
        {
            TestNodes.deleteTree(folder);
            throw ex;
        }
    }

    @Test
    void shouldPassAnsibleLint() throws Exception
    {
        try
        {
            final long startNs = System.nanoTime();
            final Shell.Result lint = shell.run(600, ANSIBLE, controllerEnvironment(),
                List.of("ansible-lint", "--offline", "site.yml", "roles/stagecoach_agent"));
            assertEquals(0, lint.exitCode(), lint::output);
            assertTrue(lint.output().contains("Passed"), lint::output);
            System.out.printf("ansible-lint passed in %.1f s: %s%n", seconds(startNs), lastLine(lint.output()));
        }
        finally
        {
            TestNodes.deleteTree(folder);
        }
    }

    @Test
    void shouldInstallAgentsThatFormAClusterAndChangeNothingTheSecondTime() throws Exception
    {
        final List<Process> agents = new ArrayList<>();
        try
        {
            final Path bundle = buildBundle();
            final TestNodes nodes = TestNodes.start(shell, folder, NODES, REPO.resolve("deploy/test/node-root"));
            try
            {
                final Path inventory = writeInventory(nodes, bundle);
                final List<String> outputs = new ArrayList<>();

                final Shell.Result first = playbook(nodes, inventory, "first run");
                outputs.add(first.output());
                final PlayRecap firstRecap = PlayRecap.parse(first.output());
                assertTrue(firstRecap.allReachedWithoutFailure(), first::output);
                assertEquals(NODES, firstRecap.hosts().size(), first::output);
                firstRecap.hosts().forEach((host, counts) ->
                    assertTrue(counts.changed() > 0, () -> host + " changed nothing on its first run\n" +
                        first.output()));

                final Shell.Result second = playbook(nodes, inventory, "second run");
                outputs.add(second.output());
                final PlayRecap secondRecap = PlayRecap.parse(second.output());
                assertTrue(secondRecap.allReachedWithoutFailure(), second::output);
                secondRecap.hosts().forEach((host, counts) ->
                    assertEquals(0, counts.changed(), () -> host + " changed something on the second run\n" +
                        second.output()));
                System.out.println("second run's recap: " + secondRecap);

                for (final TestNodes.Node node : nodes.nodes())
                {
                    checkInstalled(node);
                }
                for (final TestNodes.Node node : nodes.nodes())
                {
                    agents.add(startAgent(node));
                }
                awaitCluster(nodes, agents);
                runJobAcrossNodes(nodes);
                checkDashboard(nodes.nodes().get(1));

                final String release = inNode(nodes.nodes().get(0), "readlink", "/opt/stagecoach/current").orFail()
                    .output().strip();
                final Shell.Result check = playbook(nodes, inventory, "check run with gpus = 2 and a new bundle",
                    "--check", "--diff", "-e", "stagecoach_agent_gpus=2", "-e",
                    "stagecoach_agent_bundle=" + nextBundle(bundle));
                outputs.add(check.output());
                checkDiff(nodes, check, release);

                checkPasswordUnseen(outputs);
                stopAgents(nodes, agents);
            }
            finally
            {
                nodes.remove();
            }
        }
        finally
        {
            for (final Process agent : agents)
            {
                agent.destroyForcibly();
                agent.waitFor(10, TimeUnit.SECONDS);
            }
            TestNodes.deleteTree(folder);
        }
    }

    /**
     * @return the bundle, built into this module's target folder from the jars Maven has packaged.
     */
    private Path buildBundle() throws IOException, InterruptedException
    {
        final long startNs = System.nanoTime();
        final Path bundle = MODULE.resolve("target/agent-bundle/stagecoach-agent.tar.gz");
        shell.run(600, REPO.resolve("deploy/build-agent-bundle").toString(), "--no-build", "--output",
            bundle.toString()).orFail();
        System.out.printf("bundle built in %.1f s: %s (%d MB)%n", seconds(startNs), bundle,
            Files.size(bundle) >> 20);
        return bundle;
    }

    private Path writeInventory(final TestNodes nodes, final Path bundle) throws IOException
    {
        final StringBuilder hosts = new StringBuilder();
        for (final TestNodes.Node node : nodes.nodes())
        {
            hosts.append("        ").append(node.name()).append(":\n")
                .append("          ansible_host: ").append(node.address()).append('\n');
            if (node.name().equals(DASHBOARD_NODE))
            {
                // the submitting node's dashboard, on its network address: the role makes and copies the token (not
                // the first host, so that the task making the token runs for a host other than the first)
                hosts.append("          stagecoach_agent_dashboard_port: ").append(DASHBOARD_PORT).append('\n')
                    .append("          stagecoach_agent_dashboard_address: ").append(node.address()).append('\n');
            }
        }
        final String inventory = String.join("\n",
            "all:",
            "  vars:",
            "    ansible_user: root",
            "    ansible_become: false",
            "    ansible_python_interpreter: /usr/bin/python3",
            "    ansible_ssh_private_key_file: " + nodes.privateKey(),
            "  children:",
            "    stagecoach_agents:",
            "      vars:",
            "        stagecoach_agent_bundle: " + bundle,
            "        stagecoach_agent_port: " + PORT,
            // no systemd runs here: the test starts the agents from the unit itself
            "        stagecoach_agent_manage_service: false",
            "        stagecoach_agent_java_opts: -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Xmx192m",
            // three agents, a submitter and three ranks share two cores here, where a heartbeat may come seconds
            // late: the split-brain resolver waits a minute of unreachability before it downs anyone
            "        stagecoach_agent_downing_stable_after_ms: 60000",
            "      hosts:",
            hosts.toString().stripTrailing(),
            "    stagecoach_seeds:",
            "      hosts:",
            "        node-1:",
            "        node-2:",
            "");
        return Files.writeString(folder.resolve("inventory.yml"), inventory);
    }

    private Shell.Result playbook(final TestNodes nodes, final Path inventory, final String what,
        final String... options) throws IOException, InterruptedException
    {
        final long startNs = System.nanoTime();
        final Map<String, String> environment = controllerEnvironment();
        environment.put("ANSIBLE_SSH_ARGS", "-o ControlMaster=auto -o ControlPersist=60s -o IdentitiesOnly=yes " +
            "-o StrictHostKeyChecking=yes -o UserKnownHostsFile=" + nodes.knownHosts());
        final List<String> command = new ArrayList<>(nodes.inController());
        command.addAll(List.of("ansible-playbook", "-i", inventory.toString(), "site.yml"));
        command.addAll(List.of(options));
        final Shell.Result result = shell.run(600, ANSIBLE, environment, command);
        assertEquals(0, result.exitCode(), () -> "ansible-playbook, " + what + ":\n" + result.output());
        System.out.printf("playbook, %s: %.1f s, %s%n", what, seconds(startNs), PlayRecap.parse(result.output()));
        return result;
    }

    /**
     * @return the environment of Ansible's commands: its home, caches, temporary files (the nodes' in their own
     * /tmp) and ssh control sockets in the run's private folder, the role's ansible.cfg, no colours.
     */
    private Map<String, String> controllerEnvironment() throws IOException
    {
        final Map<String, String> environment = new HashMap<>();
        for (final String name : List.of("home", "cache", "ansible-local", "cp"))
        {
            final Path path = folder.resolve(name);
            if (!Files.exists(path, LinkOption.NOFOLLOW_LINKS))
            {
                Files.createDirectory(path, PosixFilePermissions.asFileAttribute(
                    PosixFilePermissions.fromString("rwx------")));
            }
        }
        environment.put("HOME", folder.resolve("home").toString());
        environment.put("XDG_CACHE_HOME", folder.resolve("cache").toString());
        environment.put("ANSIBLE_CONFIG", ANSIBLE.resolve("ansible.cfg").toString());
        environment.put("ANSIBLE_LOCAL_TEMP", folder.resolve("ansible-local").toString());
        // the tasks delegated to the controller would otherwise use ~root/.ansible/tmp, whatever HOME says
        environment.put("ANSIBLE_REMOTE_TMP", folder.resolve("remote-tmp").toString());
        environment.put("ANSIBLE_SSH_CONTROL_PATH_DIR", folder.resolve("cp").toString());
        environment.put("ANSIBLE_PIPELINING", "True");
        environment.put("ANSIBLE_RETRY_FILES_ENABLED", "False");
        environment.put("ANSIBLE_NOCOLOR", "1");
        environment.put("ANSIBLE_FORCE_COLOR", null);
        environment.put("NO_COLOR", "1");
        return environment;
    }

    /**
     * Checks on the node what the role installed: owners and modes, the configuration's seeds, the unit (its
     * settings, {@code systemd-analyze verify} and the exposure {@code systemd-analyze security} rates).
     */
    private void checkInstalled(final TestNodes.Node node) throws IOException, InterruptedException
    {
        final boolean dashboard = node.name().equals(DASHBOARD_NODE);
        final Map<String, String> expected = new HashMap<>(Map.of(
            "/etc/stagecoach", "root:stagecoach 750 directory",
            CONFIG, "stagecoach:stagecoach 600 regular file",
            "/etc/stagecoach/cluster.p12", "stagecoach:stagecoach 600 regular file",
            "/etc/stagecoach/cluster.password", "stagecoach:stagecoach 600 regular file",
            "/var/lib/stagecoach", "stagecoach:stagecoach 700 directory",
            "/var/lib/stagecoach/agent", "stagecoach:stagecoach 700 directory",
            "/opt/stagecoach/current", "root:root 777 symbolic link",
            UNIT, "root:root 644 regular file"));
        if (dashboard)
        {
            expected.put(TOKEN, "stagecoach:stagecoach 600 regular file");
        }
        else
        {
            inNode(node, "test", "!", "-e", TOKEN).orFail();
        }
        for (final Map.Entry<String, String> file : expected.entrySet())
        {
            final String seen = inNode(node, "stat", "--format=%U:%G %a %F", file.getKey()).orFail().output().strip();
            assertEquals(file.getValue(), seen, node.name() + " " + file.getKey());
        }
        inNode(node, "test", "-x", "/opt/stagecoach/current/runtime/bin/java").orFail();
        assertEquals("/opt/stagecoach/current/bin/stagecoach",
            inNode(node, "readlink", "/usr/local/bin/stagecoach").orFail().output().strip());

        final String config = inNode(node, "cat", CONFIG).orFail().output();
        assertTrue(config.contains("node-name = \"" + node.name() + "\""), config);
        assertTrue(config.contains("bind { host = \"" + node.address() + "\", port = " + PORT + " }"), config);
        assertTrue(config.contains("seeds = [\"" + TestNodes.SUBNET + "11:" + PORT + "\", \"" + TestNodes.SUBNET +
            "12:" + PORT + "\"]"), config);
        assertTrue(config.contains("gpus = auto"), config);
        assertTrue(config.contains("ranks.udp-port-base = 40100"), config);
        assertTrue(config.contains("downing { strategy = keep-majority, stable-after-ms = 60000 }"), config);
        assertEquals(dashboard, config.contains("dashboard {\n    port = " + DASHBOARD_PORT + "\n    address = \"" +
            node.address() + "\"\n    token-file = \"" + TOKEN + "\"\n  }"), config);

        final ServiceUnit unit = ServiceUnit.parse(inNode(node, "cat", UNIT).orFail().output());
        assertEquals("on-failure", unit.value("Restart"));
        assertEquals("infinity", unit.value("LimitMEMLOCK"));
        assertEquals(USER, unit.value("User"));
        assertEquals("yes", unit.value("NoNewPrivileges"));
        assertEquals("strict", unit.value("ProtectSystem"));
        for (final String breaksCuda : List.of("PrivateDevices", "DeviceAllow", "ProtectClock",
            "MemoryDenyWriteExecute"))
        {
            assertFalse(unit.values().containsKey(breaksCuda), breaksCuda + " would keep CUDA or the JIT out");
        }
        final Shell.Result verify = inNode(node, "systemd-analyze", "verify", UNIT);
        assertEquals(0, verify.exitCode(), verify::output);
        assertFalse(verify.output().contains("stagecoach-agent.service"), verify::output);
        final Shell.Result security = inNode(node, "systemd-analyze", "security", "--offline=true", UNIT);
        final Matcher exposure = EXPOSURE.matcher(security.output());
        assertTrue(exposure.find(), security::output);
        assertTrue(List.of("PERFECT", "SAFE", "OK").contains(exposure.group(2)), security::output);
        if (node.name().equals("node-1"))
        {
            System.out.println("systemd-analyze verify passes; security --offline rates the unit " +
                exposure.group(1) + " " + exposure.group(2));
        }
    }

    /**
     * Starts the node's agent as its unit would: ExecStart as the unit's user and group, in its working folder,
     * with its environment and nothing else, in the node's namespaces.
     */
    private Process startAgent(final TestNodes.Node node) throws IOException, InterruptedException
    {
        final ServiceUnit unit = ServiceUnit.parse(inNode(node, "cat", UNIT).orFail().output());
        final List<String> command = new ArrayList<>(node.enter());
        command.add("--wdns=" + unit.value("WorkingDirectory"));
        command.addAll(asUser(unit));
        command.addAll(unit.environment());
        command.addAll(unit.execStart());
        return new ProcessBuilder(command).redirectErrorStream(true)
            .redirectOutput(folder.resolve("agent-" + node.name() + ".log").toFile()).start();
    }

    private static List<String> asUser(final ServiceUnit unit)
    {
        return List.of("--", "setpriv", "--reuid=" + unit.value("User"), "--regid=" + unit.value("Group"),
            "--init-groups", "--", "env", "-i", "PATH=/usr/bin:/bin");
    }

    /**
     * Waits until {@code stagecoach agent status --json}, run from the installed bundle as the agent's user on each
     * node, lists all three agents Up.
     */
    private void awaitCluster(final TestNodes nodes, final List<Process> agents)
        throws IOException, InterruptedException
    {
        final long startNs = System.nanoTime();
        final long deadlineNs = startNs + TimeUnit.SECONDS.toNanos(180);
        final List<String> names = nodes.nodes().stream().map(TestNodes.Node::name).toList();
        for (final TestNodes.Node node : nodes.nodes())
        {
            String last = "no answer";
            while (true)
            {
                for (int i = 0; i < agents.size(); i++)
                {
                    if (!agents.get(i).isAlive())
                    {
                        fail("the agent of " + names.get(i) + " ended (" + agents.get(i).exitValue() + "):\n" +
                            agentLog(names.get(i)));
                    }
                }
                final Shell.Result status = agentStatus(node);
                last = status.output();
                if (status.succeeded())
                {
                    final ClusterStatus cluster = ClusterStatus.parse(status.output().strip());
                    if (cluster.members().size() == NODES &&
                        cluster.members().stream().allMatch(m -> "Up".equals(m.status()) && m.reachable()))
                    {
                        assertEquals(node.name(), cluster.node());
                        assertEquals(names, cluster.members().stream().map(MemberView::node).sorted().toList());
                        break;
                    }
                }
                if (System.nanoTime() - deadlineNs > 0)
                {
                    fail("waited 180 s for " + node.name() + " to list " + names + " Up; its last answer: " + last +
                        "\n" + agentLog(node.name()));
                }
                Thread.sleep(1000);
            }
        }
        System.out.printf("all %d agents Up on every node %.1f s after they started%n", NODES, seconds(startNs));
    }

    /**
     * Runs a job of three ranks, one on each node, through the installed agents: {@code stagecoach run -H} from the
     * command the role put on the PATH, as the agent's user on node-2; the ranks ({@link DeployedRank}, its class
     * copied into each node's home), started by each node's agent on the bundle's Java runtime and jars, exchange
     * messages between all pairs over Aeron UDP between the namespaces.
     */
    private void runJobAcrossNodes(final TestNodes nodes) throws IOException, InterruptedException
    {
        final String rankClass = DeployedRank.class.getName().replace('.', '/') + ".class";
        final String classes = "/var/lib/stagecoach/job-classes";
        for (final TestNodes.Node node : nodes.nodes())
        {
            final List<String> copy = new ArrayList<>(node.enter());
            copy.addAll(List.of("--", "install", "-D", "-m", "0644", "-o", USER, "-g", USER, "/dev/stdin",
                classes + "/" + rankClass));
            shell.run(60, null, Map.of(), copy, MODULE.resolve("target/test-classes/" + rankClass)).orFail();
        }
        final long startNs = System.nanoTime();
        final TestNodes.Node submitter = nodes.nodes().get(1);
        final ServiceUnit unit = ServiceUnit.parse(inNode(submitter, "cat", UNIT).orFail().output());
        final List<String> command = new ArrayList<>(submitter.enter());
        command.addAll(asUser(unit));
        command.addAll(List.of("/usr/local/bin/stagecoach", "run", "-n", "3", "-H", "node-1:1,node-2:1,node-3:1",
            "--timeout", "240", "-cp", classes, DeployedRank.class.getName()));
        final Shell.Result job = shell.run(300, null, Map.of(), command);
        assertEquals(0, job.exitCode(), () -> "the job across the nodes:\n" + job.output() + "\n" +
            agentLog(DASHBOARD_NODE));
        for (int rank = 0; rank < NODES; rank++)
        {
            assertTrue(job.output().contains("RANK " + rank + " node node-" + (rank + 1) + " pairs=2 wrong=0"),
                job::output);
        }
        System.out.printf("a job of 3 ranks across the nodes passed in %.1f s%n", seconds(startNs));
    }

    /**
     * The submitting node's dashboard, on its network address, refuses a request without the role's token and lists
     * the job across the nodes with it.
     */
    private void checkDashboard(final TestNodes.Node node) throws IOException, InterruptedException
    {
        final String get = String.join("\n",
            "import sys, urllib.error, urllib.request",
            "request = urllib.request.Request(sys.argv[1])",
            "if len(sys.argv) > 2:",
            "    request.add_header('Authorization', 'Bearer ' + open(sys.argv[2]).read().strip())",
            "try:",
            "    answer = urllib.request.urlopen(request, timeout=10)",
            "    print(answer.status, answer.read().decode())",
            "except urllib.error.HTTPError as error:",
            "    print(error.code)");
        final String url = "http://" + node.address() + ":" + DASHBOARD_PORT + "/api/jobs";
        assertEquals("401", inNode(node, "python3", "-c", get, url).orFail().output().strip());
        final String jobs = inNode(node, "python3", "-c", get, url, TOKEN).orFail().output().strip();
        assertTrue(jobs.startsWith("200 {\"jobs\":[\"" + DASHBOARD_NODE + "-1-"), jobs);
        System.out.println(DASHBOARD_NODE + "'s dashboard on " + node.address() + " with the role's token: " + jobs);
    }

    private Shell.Result agentStatus(final TestNodes.Node node) throws IOException, InterruptedException
    {
        final ServiceUnit unit = ServiceUnit.parse(inNode(node, "cat", UNIT).orFail().output());
        final List<String> command = new ArrayList<>(node.enter());
        command.addAll(asUser(unit));
        command.addAll(List.of(unit.execStart().get(0), "agent", "status", "--json", "--config", CONFIG));
        return shell.run(60, null, Map.of(), command);
    }

    /**
     * @return a copy of the bundle with other bytes at its end, so another checksum: a new release for the role
     * (the check run never unpacks it).
     */
    private Path nextBundle(final Path bundle) throws IOException
    {
        final Path next = folder.resolve("stagecoach-agent-next.tar.gz");
        Files.copy(bundle, next);
        Files.write(next, new byte[1024], StandardOpenOption.APPEND);
        return next;
    }

    /**
     * Checks the {@code --check --diff} run: each node would change its configuration from gpus = auto to gpus = 2,
     * point current at a new release and restart the agent, and none did.
     */
    private void checkDiff(final TestNodes nodes, final Shell.Result check, final String release)
        throws IOException, InterruptedException
    {
        final String output = check.output();
        final PlayRecap recap = PlayRecap.parse(output);
        assertTrue(recap.allReachedWithoutFailure(), output);
        recap.hosts().forEach((host, counts) -> assertTrue(counts.changed() >= 3, () -> host +
            " would change the release folder, current and agent.conf\n" + output));
        assertTrue(output.contains("-  gpus = auto") && output.contains("+  gpus = 2"), output);
        assertTrue(output.contains("RUNNING HANDLER [stagecoach_agent : Restart the stagecoach agent]"), output);
        for (final TestNodes.Node node : nodes.nodes())
        {
            assertTrue(inNode(node, "cat", CONFIG).orFail().output().contains("gpus = auto"),
                node.name() + "'s configuration is unchanged by --check");
            assertEquals(release, inNode(node, "readlink", "/opt/stagecoach/current").orFail().output().strip(),
                node.name() + "'s current release is unchanged by --check");
            assertEquals(1, inNode(node, "ls", "/opt/stagecoach/releases").orFail().output().strip().split("\n")
                .length, node.name() + " has one release after --check");
        }
    }

    /**
     * The cluster's password, made on the controller, appears in no output of Ansible's.
     */
    private void checkPasswordUnseen(final List<String> outputs) throws IOException
    {
        final Path keys = folder.resolve("stagecoach-cluster-key");
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(keys,
            LinkOption.NOFOLLOW_LINKS)));
        for (final String file : List.of("cluster.p12", "cluster.password", "dashboard.token"))
        {
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(
                keys.resolve(file), LinkOption.NOFOLLOW_LINKS)), file);
        }
        final String password = Files.readAllLines(keys.resolve("cluster.password")).get(0);
        assertTrue(password.length() >= 40, "a password of 32 random bytes");
        final String token = Files.readAllLines(keys.resolve("dashboard.token")).get(0);
        assertTrue(token.matches("[0-9a-f]{48}"), "a token of 24 random bytes");
        for (final String output : outputs)
        {
            assertFalse(output.contains(password), "Ansible's output shows the cluster's password");
            assertFalse(output.contains(token), "Ansible's output shows the dashboard's token");
        }
    }

    /**
     * Stops the agents with SIGTERM, as systemctl stop does; each leaves the cluster and exits 0.
     */
    private void stopAgents(final TestNodes nodes, final List<Process> agents) throws InterruptedException
    {
        for (int i = agents.size() - 1; i >= 0; i--)
        {
            final String name = nodes.nodes().get(i).name();
            final long startNs = System.nanoTime();
            agents.get(i).destroy();
            assertTrue(agents.get(i).waitFor(30, TimeUnit.SECONDS), () -> name + "'s agent ends within 30 s of " +
                "SIGTERM\n" + agentLog(name));
            assertEquals(0, agents.get(i).exitValue(), () -> agentLog(name));
            System.out.printf("%s's agent left on SIGTERM in %.1f s%n", name, seconds(startNs));
        }
    }

    private Shell.Result inNode(final TestNodes.Node node, final String... command)
        throws IOException, InterruptedException
    {
        final List<String> full = new ArrayList<>(node.enter());
        full.add("--");
        full.addAll(List.of(command));
        return shell.run(60, null, Map.of(), full);
    }

    private String agentLog(final String node)
    {
        try
        {
            return Files.readString(folder.resolve("agent-" + node + ".log"));
        }
        catch (final IOException ex)
        {
            return ex.toString();
        }
    }

    private static boolean isRoot() throws IOException
    {
        return ((Integer)Files.getAttribute(Path.of("/proc/self"), "unix:uid")) == 0;
    }

    private static double seconds(final long startNs)
    {
        return (System.nanoTime() - startNs) / 1e9;
    }

    private static String lastLine(final String output)
    {
        final String[] lines = output.strip().split("\n");
        return lines[lines.length - 1];
    }
}
