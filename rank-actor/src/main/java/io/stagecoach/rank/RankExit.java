package io.stagecoach.rank;

import java.util.Set;
import java.util.concurrent.CopyOnWriteArraySet;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How a rank ends when its program does not close it: the runtime's threads are daemon threads, so the JVM exits
 * once the program's threads end, and a shutdown hook then closes the rank. A program whose thread that started the
 * rank returned without {@link Communicator#close()} gets a warning and the orderly close (its peers read everything
 * it sent and learn that it left). When that thread died of an exception (printed, and the JVM exits with status 1),
 * when the JVM exits while it still runs ({@code System.exit}, SIGTERM, SIGINT), or when the rank's launcher went
 * away, the rank leaves without a goodbye: its peers learn it from the facts at once (the launcher reports the exit,
 * the process and its streams are gone).
 */
final class RankExit
{
    /** Exit status of a rank whose launcher went away. */
    static final int LAUNCHER_LOST_STATUS = 1;

    private static final Logger LOG = LoggerFactory.getLogger(RankRuntime.class);
    private static final Set<RankExit> WATCHED = new CopyOnWriteArraySet<>();

    private final RankRuntime runtime;
    private final Thread hook = new Thread(this::onJvmExit, "stagecoach-rank-exit");
    private volatile Thread starter;
    private volatile Throwable failure;
    private volatile String launcherLost;

    RankExit(final RankRuntime runtime)
    {
        this.runtime = runtime;
    }

    /**
     * Watches the thread that started the rank and the JVM's exit, from now until {@link #unwatch()}.
     */
    void watch()
    {
        starter = Thread.currentThread();
        installUncaughtHandler();
        WATCHED.add(this);
        Runtime.getRuntime().addShutdownHook(hook);
    }

    /**
     * The rank is closing by itself: nothing more to watch.
     */
    void unwatch()
    {
        if (WATCHED.remove(this) && Thread.currentThread() != hook)
        {
            try
            {
                Runtime.getRuntime().removeShutdownHook(hook);
            }
            catch (final IllegalStateException ignore)
            {
                // the JVM is exiting and this hook has started or will not run: either way nothing to remove
            }
        }
    }

    /**
     * The connection to the launcher's rendezvous service broke while the rank runs: the launcher is gone, and with
     * it the job. The rank exits, as a process started by mpirun dies with it.
     *
     * @param reason what broke.
     */
    void launcherLost(final String reason)
    {
        if (!WATCHED.contains(this))
        {
            return;
        }
        launcherLost = reason;
        LOG.error("rank {} lost its launcher ({}): the job is over, exiting", runtime.rank(), reason);
        final Thread exiting = new Thread(() -> System.exit(LAUNCHER_LOST_STATUS), "stagecoach-rank-launcher-lost");
        exiting.setDaemon(true);
        exiting.start();
    }

    private void onJvmExit()
    {
        if (!WATCHED.contains(this))
        {
            return;
        }
        final String abrupt = failure != null ? "its program failed: " + failure :
            launcherLost != null ? "its launcher is gone" :
            starter.isAlive() ? "the JVM exits while its program runs (System.exit or a signal)" : null;
        if (abrupt != null)
        {
            LOG.warn("rank {} leaves without a goodbye: {}", runtime.rank(), abrupt);
            runtime.abandon();
            return;
        }
        LOG.warn("rank {}: the program ended without Communicator.close(); closing the rank now", runtime.rank());
        try
        {
            runtime.close();
        }
        catch (final RuntimeException ex)
        {
            LOG.warn("rank {}: {}", runtime.rank(), ex.getMessage());
        }
    }

    private static synchronized void installUncaughtHandler()
    {
        final Thread.UncaughtExceptionHandler previous = Thread.getDefaultUncaughtExceptionHandler();
        if (previous instanceof FailureRecorder)
        {
            return;
        }
        Thread.setDefaultUncaughtExceptionHandler(new FailureRecorder(previous));
    }

    /**
     * Notes that a thread which started a rank died of an exception, then prints it as the JVM would, or hands it to
     * the handler that was there before.
     */
    private record FailureRecorder(Thread.UncaughtExceptionHandler previous) implements Thread.UncaughtExceptionHandler
    {
        public void uncaughtException(final Thread thread, final Throwable error)
        {
            for (final RankExit exit : WATCHED)
            {
                if (exit.starter == thread)
                {
                    exit.failure = error;
                }
            }
            if (previous != null)
            {
                previous.uncaughtException(thread, error);
            }
            else if (!(error instanceof ThreadDeath))
            {
                System.err.print("Exception in thread \"" + thread.getName() + "\" ");
                error.printStackTrace(System.err);
            }
        }
    }
}
