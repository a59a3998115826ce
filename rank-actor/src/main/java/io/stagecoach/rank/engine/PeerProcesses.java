package io.stagecoach.rank.engine;

import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The processes of same-node peers, as their HELLOs name them, looked at from the rank actor's timer, off the
 * engine's duty cycle: a peer whose process is gone is reported to the engine as dead, a fact that needs no
 * launcher and no timeout. A handle holds the process's start time, so a pid used again by another process does
 * not pass for the peer.
 */
public final class PeerProcesses
{
    /** Interval between looks. */
    public static final long CHECK_INTERVAL_MS = 100;
    /** Processes one look examines, in turn, so that a look costs little however large the job. */
    private static final int PER_CHECK = 16;

    private final AtomicReferenceArray<ProcessHandle> processes;
    private int next;

    public PeerProcesses(final int size)
    {
        this.processes = new AtomicReferenceArray<>(size);
    }

    /**
     * @param pid a process of this node.
     * @return whether it is still there.
     */
    static boolean isAlive(final long pid)
    {
        return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
    }

    /**
     * @param rank    a peer.
     * @param process its process, seen on this node.
     */
    public void watch(final int rank, final ProcessHandle process)
    {
        processes.set(rank, process);
    }

    /**
     * @param rank a peer.
     * @return whether its process, seen on this node, is still there; false where none was seen or it is gone.
     */
    public boolean isRunning(final int rank)
    {
        final ProcessHandle process = processes.get(rank);
        return process != null && process.isAlive();
    }

    /**
     * Looks at the next few processes; each one gone is reported once, as a command to the engine. Called by one
     * thread at a time.
     *
     * @param engine told of peers whose process is gone.
     */
    public void check(final CommandSink engine)
    {
        final int size = processes.length();
        for (int i = 0; i < Math.min(PER_CHECK, size); i++)
        {
            final int rank = next;
            next = next + 1 == size ? 0 : next + 1;
            final ProcessHandle process = processes.get(rank);
            if (process != null && !process.isAlive() && processes.compareAndSet(rank, process, null))
            {
                final String reason = "its process (pid " + process.pid() + ") is gone";
                engine.enqueue(locked -> locked.peerDied(rank, reason));
            }
        }
    }
}
