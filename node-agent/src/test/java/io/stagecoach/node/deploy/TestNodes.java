package io.stagecoach.node.deploy;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Machines for a deployment test, made of network namespaces: a controller namespace with a bridge at
 * {@code 10.77.0.1/24} and one namespace per node, joined to the bridge by a veth pair, at {@code 10.77.0.11},
 * {@code .12}, ...; the addresses exist only inside these namespaces. Each node runs an sshd on its own address
 * ({@code deploy/test/node-root}: its own /etc, /opt, /usr, /var, /root, /tmp, /run and /dev/shm in a private mount
 * namespace), which lets in only the test's key; the test's known_hosts holds the nodes' host keys. Ansible runs in
 * the controller namespace and reaches the nodes over ssh as it reaches real ones.
 * <p>
 * Names are {@code scdeploy-<pid of the test's JVM>-<random>}: {@link #removeLeftovers} removes the namespaces (with
 * every process in them) and private folders of runs whose JVM is gone, and {@link #remove} those of this one.
 */
final class TestNodes
{
    static final String SUBNET = "10.77.0.";
    private static final String PREFIX = "scdeploy-";
    private static final Pattern OWNED = Pattern.compile("^" + PREFIX + "(\\d+)-");

    /**
     * A node.
     *
     * @param name      its inventory name, node-1, node-2, ...
     * @param address   its address.
     * @param namespace its network namespace.
     * @param sshd      its sshd, the node's first process, whose mount namespace is the node's file system.
     * @param log       the sshd's log.
     */
    record Node(String name, String address, String namespace, Process sshd, Path log)
    {
        /**
         * @return the start of a command that runs in the node's network and mount namespaces, as root.
         */
        List<String> enter()
        {
            return List.of("nsenter", "--target", Long.toString(sshd.pid()), "--mount", "--net");
        }
    }

    private final Shell shell;
    private final String name;
    private final String controller;
    private final Path sshFolder;
    private final List<Node> nodes = new ArrayList<>();
    private final List<String> namespaces = new ArrayList<>();

    private TestNodes(final Shell shell, final String name, final Path folder) throws IOException
    {
        this.shell = shell;
        this.name = name;
        this.controller = name + "-c";
        this.sshFolder = privateFolder(folder.resolve("ssh"));
    }

    /**
     * @return a new private folder (0700) for a test run, named for this JVM, under the temporary folder.
     */
    static Path createFolder() throws IOException
    {
        return Files.createTempDirectory(PREFIX + ProcessHandle.current().pid() + "-",
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
    }

    /**
     * Starts the controller namespace and {@code count} nodes, each with its sshd listening.
     *
     * @param shell  runs the commands.
     * @param folder the run's private folder, for keys, sshd configurations and logs.
     * @param count  how many nodes, 1 to 9.
     * @param script {@code deploy/test/node-root}.
     * @return the nodes; {@link #remove} removes them; where this fails, it removes what it made.
     */
    static TestNodes start(final Shell shell, final Path folder, final int count, final Path script)
        throws IOException, InterruptedException
    {
        final String name = PREFIX + ProcessHandle.current().pid() + "-" +
            Integer.toHexString(ThreadLocalRandom.current().nextInt(0x100000, 0x1000000));
        final TestNodes nodes = new TestNodes(shell, name, folder);
        try
        {
            nodes.makeController();
            shell.run(30, "ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "deployment-test", "-f",
                nodes.privateKey().toString()).orFail();
            final StringBuilder knownHosts = new StringBuilder();
            for (int i = 1; i <= count; i++)
            {
                knownHosts.append(nodes.startNode(folder, i, script));
            }
            Files.writeString(nodes.knownHosts(), knownHosts);
            for (final Node node : nodes.nodes)
            {
                awaitListening(node);
            }
            return nodes;
        }
        catch (final IOException | InterruptedException | RuntimeException | AssertionError ex)
        {
            nodes.remove();
            throw ex;
        }
    }

    List<Node> nodes()
    {
        return nodes;
    }

    Path privateKey()
    {
        return sshFolder.resolve("id_ed25519");
    }

    Path knownHosts()
    {
        return sshFolder.resolve("known_hosts");
    }

    /**
     * @return the start of a command that runs in the controller's network namespace.
     */
    List<String> inController()
    {
        return List.of("ip", "netns", "exec", controller);
    }

    private void makeController() throws IOException, InterruptedException
    {
        addNamespace(controller);
        ip("-n", controller, "link", "add", "br0", "type", "bridge");
        ip("-n", controller, "address", "add", SUBNET + "1/24", "dev", "br0");
        ip("-n", controller, "link", "set", "br0", "up");
    }

    /**
     * @return the node's line for known_hosts.
     */
    private String startNode(final Path folder, final int index, final Path script)
        throws IOException, InterruptedException
    {
        final String namespace = name + "-n" + index;
        final String address = SUBNET + (10 + index);
        addNamespace(namespace);
        ip("link", "add", "v" + index, "netns", controller, "type", "veth", "peer", "name", "eth0", "netns",
            namespace);
        ip("-n", controller, "link", "set", "v" + index, "master", "br0", "up");
        ip("-n", namespace, "address", "add", address + "/24", "dev", "eth0");
        ip("-n", namespace, "link", "set", "eth0", "up");

        final Path nodeFolder = privateFolder(folder.resolve("node-" + index));
        final Path hostKey = nodeFolder.resolve("ssh_host_ed25519_key");
        shell.run(30, "ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "node-" + index, "-f",
            hostKey.toString()).orFail();
        Files.copy(privateKey().resolveSibling("id_ed25519.pub"), nodeFolder.resolve("authorized_keys"));
        final String seen = "/run/stagecoach-node/";
        Files.writeString(nodeFolder.resolve("sshd_config"), String.join("\n",
            "ListenAddress " + address + ":22",
            "HostKey " + seen + "ssh_host_ed25519_key",
            "AuthorizedKeysFile " + seen + "authorized_keys",
            "PidFile none",
            // the key files lie in the test's private folder, whose parents (/tmp) are not root's alone
            "StrictModes no",
            "PermitRootLogin prohibit-password",
            "AllowUsers root",
            "PubkeyAuthentication yes",
            "PasswordAuthentication no",
            "KbdInteractiveAuthentication no",
            "UsePAM no",
            "PrintMotd no",
            "Subsystem sftp internal-sftp",
            ""));
        final Path log = folder.resolve("sshd-node-" + index + ".log");
        final Process sshd = new ProcessBuilder("ip", "netns", "exec", namespace, "unshare", "--mount",
            "--propagation", "private", script.toString(), nodeFolder.toString())
            .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        nodes.add(new Node("node-" + index, address, namespace, sshd, log));
        return address + " " + Files.readString(hostKey.resolveSibling("ssh_host_ed25519_key.pub")).strip() + "\n";
    }

    private static void awaitListening(final Node node) throws IOException, InterruptedException
    {
        final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() - deadlineNs < 0)
        {
            final String log = Files.readString(node.log());
            if (log.contains("Server listening on " + node.address()))
            {
                return;
            }
            if (!node.sshd().isAlive())
            {
                throw new AssertionError("the sshd of " + node.name() + " ended (" + node.sshd().exitValue() +
                    "):\n" + log);
            }
            Thread.sleep(100);
        }
        throw new AssertionError("the sshd of " + node.name() + " did not listen on " + node.address() +
            " within 30 s:\n" + Files.readString(node.log()));
    }

    private void addNamespace(final String namespace) throws IOException, InterruptedException
    {
        ip("netns", "add", namespace);
        namespaces.add(namespace);
        ip("-n", namespace, "link", "set", "lo", "up");
    }

    private void ip(final String... args) throws IOException, InterruptedException
    {
        shell.run(30, null, Map.of(), Shell.concat(List.of("ip"), args)).orFail();
    }

    /**
     * Ends every process in the namespaces (sshd, its sessions, the agents), which takes the nodes' mounts with
     * them, then removes the namespaces and with them their links and addresses.
     */
    void remove() throws IOException, InterruptedException
    {
        for (int i = namespaces.size() - 1; i >= 0; i--)
        {
            removeNamespace(shell, namespaces.get(i));
        }
        for (final Node node : nodes)
        {
            node.sshd().destroyForcibly();
            node.sshd().waitFor(10, TimeUnit.SECONDS);
        }
    }

    /**
     * Removes the namespaces and private folders of earlier runs whose JVM is gone (or whose process id this JVM now
     * has), as a run killed before its cleanup leaves them.
     *
     * @param shell runs the commands.
     * @param own   this run's folder, which stays.
     */
    static void removeLeftovers(final Shell shell, final Path own) throws IOException, InterruptedException
    {
        final Shell.Result list = shell.run(30, "ip", "netns", "list").orFail();
        for (final String line : list.output().split("\n"))
        {
            final String namespace = line.strip().split("\\s+")[0];
            if (isLeftover(namespace))
            {
                System.out.println("removing namespace " + namespace + " left by an earlier run");
                removeNamespace(shell, namespace);
            }
        }
        try (Stream<Path> folders = Files.list(Path.of(System.getProperty("java.io.tmpdir"))))
        {
            for (final Path folder : folders.toList())
            {
                if (!folder.equals(own) && isLeftover(folder.getFileName().toString()) &&
                    Files.isDirectory(folder, LinkOption.NOFOLLOW_LINKS))
                {
                    System.out.println("removing folder " + folder + " left by an earlier run");
                    deleteTree(folder);
                }
            }
        }
    }

    private static boolean isLeftover(final String name)
    {
        final Matcher matcher = OWNED.matcher(name);
        if (!matcher.find())
        {
            return false;
        }
        final long pid = Long.parseLong(matcher.group(1));
        final Optional<ProcessHandle> owner = ProcessHandle.of(pid);
        return owner.isEmpty() || !owner.get().isAlive() || pid == ProcessHandle.current().pid();
    }

    private static void removeNamespace(final Shell shell, final String namespace)
        throws IOException, InterruptedException
    {
        final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        List<Long> pids = pidsIn(shell, namespace);
        while (!pids.isEmpty() && System.nanoTime() - deadlineNs < 0)
        {
            pids.forEach(pid -> ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly));
            Thread.sleep(100);
            pids = pidsIn(shell, namespace);
        }
        if (!pids.isEmpty())
        {
            throw new AssertionError("processes " + pids + " of namespace " + namespace + " did not end in 20 s");
        }
        final Shell.Result deleted = shell.run(30, "ip", "netns", "delete", namespace);
        if (!deleted.succeeded() && !deleted.output().contains("No such file"))
        {
            deleted.orFail();
        }
    }

    private static List<Long> pidsIn(final Shell shell, final String namespace)
        throws IOException, InterruptedException
    {
        final Shell.Result result = shell.run(30, "ip", "netns", "pids", namespace);
        if (!result.succeeded())
        {
            return List.of();
        }
        return Stream.of(result.output().split("\\s+")).filter(s -> s.matches("\\d+")).map(Long::valueOf).toList();
    }

    private static Path privateFolder(final Path folder) throws IOException
    {
        return Files.createDirectory(folder,
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
    }

    /**
     * Deletes a folder and everything in it, never following a symbolic link (a link is deleted, not its target).
     */
    static void deleteTree(final Path folder) throws IOException
    {
        if (!Files.exists(folder, LinkOption.NOFOLLOW_LINKS))
        {
            return;
        }
        Files.walkFileTree(folder, new SimpleFileVisitor<>()
        {
            @Override
            public FileVisitResult visitFile(final Path file, final BasicFileAttributes attributes) throws IOException
            {
                Files.delete(file);
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult postVisitDirectory(final Path dir, final IOException failure) throws IOException
            {
                if (failure != null)
                {
                    throw failure;
                }
                Files.delete(dir);
                return FileVisitResult.CONTINUE;
            }
        });
    }
}
