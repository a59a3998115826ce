package io.stagecoach.node.launch;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * One rank's JVM process: its output forwarders, the descendants it was seen to start (so that they can be ended
 * even after the rank itself is gone) and how it ended.
 */
final class RankProcess
{
    private final int rank;
    private final Process process;
    private final Thread stdout;
    private final Thread stderr;
    private final OutputForwarder stdoutForwarder;
    private final OutputForwarder stderrForwarder;
    private final Set<ProcessHandle> descendants = ConcurrentHashMap.newKeySet();
    private volatile boolean endedByLauncher;
    private volatile String lastState;

    private RankProcess(
        final int rank, final Process process, final OutputForwarder stdoutForwarder,
        final OutputForwarder stderrForwarder)
    {
        this.rank = rank;
        this.process = process;
        this.stdoutForwarder = stdoutForwarder;
        this.stderrForwarder = stderrForwarder;
        this.stdout = forwarder(stdoutForwarder, "stagecoach-rank-" + rank + "-out");
        this.stderr = forwarder(stderrForwarder, "stagecoach-rank-" + rank + "-err");
    }

    static RankProcess start(
        final LaunchContext context, final int rank, final Map<String, String> environment, final CoreBinding binding)
        throws IOException
    {
        final ProcessBuilder builder =
            new ProcessBuilder(binding == null ? context.command() : binding.bind(rank, context.command()));
        builder.environment().putAll(environment);
        if (rank == 0 && context.inputToFirstRank())
        {
            builder.redirectInput(ProcessBuilder.Redirect.INHERIT);
        }
        final Process process = builder.start();
        process.getOutputStream().close();
        final String prefix = context.tagOutput() ? "[" + rank + "] " : "";
        return new RankProcess(rank, process, new OutputForwarder(process.getInputStream(), context.out(), prefix),
            new OutputForwarder(process.getErrorStream(), context.err(), prefix));
    }

    int rank()
    {
        return rank;
    }

    long pid()
    {
        return process.pid();
    }

    Process process()
    {
        return process;
    }

    boolean isAlive()
    {
        return process.isAlive();
    }

    int exitStatus()
    {
        return process.exitValue();
    }

    boolean endedByLauncher()
    {
        return endedByLauncher;
    }

    /**
     * @return what the process is doing now ({@link ProcessState}), also kept as {@link #lastState()}.
     */
    String observeState()
    {
        final String state = ProcessState.describe(pid());
        lastState = state;
        return state;
    }

    /**
     * @return what {@link #observeState()} saw last, or null.
     */
    String lastState()
    {
        return lastState;
    }

    void recordDescendants()
    {
        if (process.isAlive())
        {
            process.descendants().forEach(descendants::add);
        }
    }

    void terminate()
    {
        recordDescendants();
        if (process.isAlive())
        {
            endedByLauncher = true;
        }
        descendants.forEach(ProcessHandle::destroy);
        process.destroy();
    }

    void kill()
    {
        recordDescendants();
        descendants.forEach(ProcessHandle::destroyForcibly);
        if (process.isAlive())
        {
            endedByLauncher = true;
            process.destroyForcibly();
        }
    }

    boolean awaitExit(final long timeoutMs) throws InterruptedException
    {
        return process.waitFor(timeoutMs, TimeUnit.MILLISECONDS);
    }

    void killLeftoverDescendants()
    {
        descendants.stream().filter(ProcessHandle::isAlive).forEach(ProcessHandle::destroyForcibly);
    }

    List<ProcessHandle> liveDescendants()
    {
        return descendants.stream().filter(ProcessHandle::isAlive).toList();
    }

    /**
     * Waits for the rank's output to be forwarded whole: as long as its forwarders read or write, and at most
     * {@code idleMs} more once neither did for that long (a process the rank started may hold its pipes open).
     */
    void joinOutput(final long idleMs) throws InterruptedException
    {
        joinWhileBusy(stdout, stdoutForwarder, idleMs);
        joinWhileBusy(stderr, stderrForwarder, idleMs);
    }

    /**
     * @return whether the forwarder ended; false when it read nothing for {@code idleMs} and was not writing.
     */
    static boolean joinWhileBusy(final Thread thread, final OutputForwarder forwarder, final long idleMs)
        throws InterruptedException
    {
        long seen = forwarder.readBytes();
        while (true)
        {
            thread.join(Math.max(1, idleMs));
            if (!thread.isAlive())
            {
                return true;
            }
            final long now = forwarder.readBytes();
            if (now == seen && !forwarder.isWriting())
            {
                return false;
            }
            seen = now;
        }
    }

    private static Thread forwarder(final Runnable forwarder, final String name)
    {
        final Thread thread = new Thread(forwarder, name);
        thread.setDaemon(true);
        thread.start();
        return thread;
    }
}
