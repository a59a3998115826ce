package io.stagecoach.node.launch;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.StringJoiner;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import io.stagecoach.device.DeviceContext;
import io.stagecoach.rank.bootstrap.JobFolder;
import io.stagecoach.rank.bootstrap.LaunchEnvironment;
import io.stagecoach.rank.memory.SharedArena;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one job on this machine, like {@code mpirun}: the node's Aeron media driver (in the job's private
 * {@link JobFolder}) and the job's rendezvous service in this process, N rank JVMs with their {@code STAGECOACH_*}
 * environment, their output forwarded. A rank that dies abnormally is reported to the others at once ({@code DEAD});
 * after a short grace every rank still running is ended, and ranks not started yet are not started. So is every rank
 * when the timeout passes, which counts from the launch, while ranks are still being started too. The report names
 * each rank it ends with what it was doing, and as the first failure the peer a failed rank reported it lost
 * ({@code LOST}), if any. Nothing is left running: not the ranks, not what they started; nothing is left in the
 * job's folder either.
 */
public final class Launcher
{
    private static final Logger LOG = LoggerFactory.getLogger(Launcher.class);
    private static final long POLL_MS = 500;
    /** How long a rank's output may stay silent, once the rank ended, before its forwarding is given up. */
    private static final long OUTPUT_IDLE_MS = 2_000;

    private final LaunchContext context;
    private String aeronDirectory;
    private final long launchNs = System.nanoTime();
    private final List<RankProcess> ranks = new CopyOnWriteArrayList<>();
    private final BlockingQueue<RankProcess> exits = new LinkedBlockingQueue<>();
    private final Thread shutdownHook = new Thread(this::onShutdown, "stagecoach-launcher-shutdown");
    private JobFolder jobFolder;
    private boolean emulatedDirectoryGiven;
    private NodeMediaDriver driver;
    private RendezvousServer rendezvous;
    private JobEvents events;
    private volatile String endRequest;
    private boolean endRequestHandled;
    private RankStartup startup;
    private TraceExport trace;
    private RankProcess firstFailure;
    private boolean timedOut;
    private volatile boolean ended;
    private boolean endScheduled;
    private long endAtNs;
    private int running;

    private Launcher(final LaunchContext context)
    {
        this.context = context;
    }

    /**
     * Run a job to its end.
     *
     * @param context what to run.
     * @return the job's exit status: 0 when every rank exited with 0; the largest status of the ranks that ended by
     * themselves when one failed; 124 when the timeout passed.
     * @throws LaunchException when the job could not be started, e.g. more ranks than cores without
     *                         {@link LaunchContext#oversubscribe(boolean)} or a rank whose process could not be
     *                         started (nothing is left running then either).
     */
    public static int run(final LaunchContext context)
    {
        return prepare(context).run();
    }

    /**
     * A launcher for a job, not started yet: for a caller that may need to {@link #end(String)} it from another
     * thread, e.g. the launcher of one node's ranks in a job across nodes, ended when a rank of another node failed.
     *
     * @param context what to run.
     * @return the launcher; {@link #run()} runs the job.
     * @throws LaunchException as {@link #run(LaunchContext)}.
     */
    public static Launcher prepare(final LaunchContext context)
    {
        return new Launcher(context.conclude());
    }

    /**
     * Ends the job from another thread: reports the reason, starts no more ranks and ends those running, as when
     * the timeout passes; {@link #run()} then returns once they have exited.
     *
     * @param reason why, for the report.
     */
    public void end(final String reason)
    {
        endRequest = reason;
    }

    /**
     * Run the job to its end; once only.
     *
     * @return as {@link #run(LaunchContext)}; ranks ended by {@link #end(String)} do not count.
     * @throws LaunchException as {@link #run(LaunchContext)}.
     */
    public int run()
    {
        Runtime.getRuntime().addShutdownHook(shutdownHook);
        try
        {
            start();
            monitor();
            return exportTrace(exitStatus());
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new LaunchException("interrupted while running job " + context.jobId(), ex);
        }
        finally
        {
            abort();
            removeShutdownHook();
        }
    }

    private void start()
    {
        final CoreBinding binding;
        try
        {
            binding = context.bindToCore() ? CoreBinding.ofThisProcess() : null;
        }
        catch (final IllegalStateException ex)
        {
            throw new LaunchException(ex.getMessage(), ex);
        }
        jobFolder = createJobFolder();
        trace = TraceExport.prepare(context, jobFolder.path());
        context.jobObserver().jobStarting(context.jobId(), context.mainClass(), context.size(), jobFolder.path(),
            context::environment);
        aeronDirectory = null != context.aeronDirectory() ? context.aeronDirectory().toString() :
            jobFolder.aeronDirectory();
        if (context.mediaDriver())
        {
            driver = NodeMediaDriver.launch(Path.of(aeronDirectory));
        }
        events = null != context.jobEvents() ? context.jobEvents() : startRendezvous();
        LOG.debug("job {}: {} of {} ranks of {}, rendezvous {}, Aeron directory {}", context.jobId(),
            context.localCount(), context.size(), context.mainClass(), events.rendezvousAddress(), aeronDirectory);
        startup = new RankStartup(context, events, aeronDirectory, binding);
    }

    private RendezvousServer startRendezvous()
    {
        try
        {
            rendezvous = RendezvousServer.start(context.jobId(), context.size());
            return rendezvous;
        }
        catch (final IOException ex)
        {
            throw new LaunchException("could not start the rendezvous service: " + ex, ex);
        }
    }

    private void monitor() throws InterruptedException
    {
        while (mayStartRanks() || running > 0)
        {
            enforceDeadlines();
            if (mayStartRanks())
            {
                startNextRank();
                drainExits();
            }
            else if (running > 0)
            {
                awaitExit();
            }
        }
    }

    private boolean mayStartRanks()
    {
        return ranks.size() < context.localCount() && !timedOut && null == firstFailure && !ended &&
            null == endRequest;
    }

    private synchronized void startNextRank()
    {
        if (ended)
        {
            return;
        }
        final RankProcess process = startup.start(ranks.size());
        ranks.add(process);
        running++;
        process.process().onExit().thenRun(() -> exits.add(process));
        LOG.debug("job {}: rank {} started, pid {}", context.jobId(), process.rank(), process.pid());
    }

    private void enforceDeadlines() throws InterruptedException
    {
        final long nowNs = System.nanoTime();
        if (!timedOut && null != context.timeout() && nowNs - launchNs >= context.timeout().toNanos())
        {
            timeOut();
            endRemaining();
        }
        else if (endScheduled && nowNs - endAtNs >= 0)
        {
            endRemaining();
        }
        else if (null != endRequest && !endRequestHandled)
        {
            endRequestHandled = true;
            final String running = describeRunning();
            report(endRequest + (null == running ? "" : "; ending " + running));
            terminateAll();
        }
    }

    private void awaitExit() throws InterruptedException
    {
        final RankProcess exited = exits.poll(pollMillis(), TimeUnit.MILLISECONDS);
        if (null == exited)
        {
            recordDescendants();
            return;
        }
        onExited(exited);
    }

    private void drainExits()
    {
        RankProcess exited;
        while (null != (exited = exits.poll()))
        {
            onExited(exited);
        }
    }

    private void onExited(final RankProcess process)
    {
        running--;
        removeArenaLeftBy(process);
        if (onExit(process) && !endScheduled)
        {
            endScheduled = true;
            endAtNs = System.nanoTime() + context.deathGrace().toNanos();
        }
    }

    /**
     * A rank killed, or ended without closing, leaves its shared arena in the ranks' Aeron directory: the job's folder
     * goes at the job's end, a node agent's stays.
     */
    private void removeArenaLeftBy(final RankProcess process)
    {
        if (null == aeronDirectory || ProcessHandle.of(process.pid()).isPresent())
        {
            return; // not started that far, or the pid, reaped, is another process's now (whose arena it may be)
        }
        try
        {
            if (SharedArena.deleteLeftBy(aeronDirectory, process.rank(), process.pid()))
            {
                LOG.debug("job {}: removed the shared arena rank {} (pid {}) left", context.jobId(), process.rank(),
                    process.pid());
            }
        }
        catch (final IOException ex)
        {
            LOG.warn("job {}: cannot remove the shared arena rank {} (pid {}) left in {}: {}", context.jobId(),
                process.rank(), process.pid(), aeronDirectory, ex.toString());
        }
    }

    private boolean onExit(final RankProcess process)
    {
        final int status = process.exitStatus();
        final String description = ExitStatus.describe(status);
        events.rankExited(process.rank(), status, 0 == status ? "exited with status 0" : description);
        if (0 == status || process.endedByLauncher())
        {
            LOG.debug("job {}: rank {} (pid {}) ended: {}", context.jobId(), process.rank(), process.pid(), status);
            return false;
        }
        report("rank " + process.rank() + " (pid " + process.pid() + ") failed: " + description);
        if (null == firstFailure)
        {
            firstFailure = process;
            final String notStarted = describeNotStarted();
            if (null != notStarted)
            {
                report("not starting " + notStarted + " of job " + context.jobId() + ": rank " + process.rank() +
                    " failed");
            }
        }
        return true;
    }

    private void timeOut()
    {
        timedOut = true;
        final String running = describeRunning();
        final String notStarted = describeNotStarted();
        report("job " + context.jobId() + " timed out after " + Durations.format(context.timeout()) +
            " (--timeout)" + (null == running ? "" : "; ending " + running) +
            (null == notStarted ? "" : "; " + notStarted + " not started") + describeLosses());
    }

    private void endRemaining() throws InterruptedException
    {
        endScheduled = false;
        final String running = describeRunning();
        if (null != firstFailure && !timedOut && null != running)
        {
            report("ending " + running + ", " + Durations.format(context.deathGrace()) + " after rank " +
                firstFailure.rank() + " failed");
        }
        terminateAll();
    }

    private synchronized void terminateAll() throws InterruptedException
    {
        ranks.forEach(RankProcess::terminate);
        final long deadlineNs = System.nanoTime() + context.terminationGrace().toNanos();
        for (final RankProcess process : ranks)
        {
            final long remainingMs = TimeUnit.NANOSECONDS.toMillis(deadlineNs - System.nanoTime());
            if (!process.awaitExit(Math.max(1, remainingMs)))
            {
                LOG.warn("job {}: rank {} (pid {}) did not exit {} after SIGTERM, killing it", context.jobId(),
                    process.rank(), process.pid(), Durations.format(context.terminationGrace()));
                process.kill();
            }
        }
    }

    private synchronized void abort()
    {
        if (ended)
        {
            return;
        }
        ended = true;
        try
        {
            if (ranks.stream().anyMatch(RankProcess::isAlive))
            {
                terminateAll();
            }
            ranks.forEach(RankProcess::kill);
            final long exitDeadlineNs = System.nanoTime() + context.terminationGrace().toNanos();
            for (final RankProcess process : ranks)
            {
                process.awaitExit(remainingMillis(exitDeadlineNs));
                process.killLeftoverDescendants();
                if (!process.isAlive())
                {
                    removeArenaLeftBy(process);
                }
            }
            for (final RankProcess process : ranks)
            {
                process.joinOutput(OUTPUT_IDLE_MS);
            }
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            ranks.forEach(RankProcess::kill);
        }
        finally
        {
            closeServices();
        }
    }

    private void closeServices()
    {
        if (null != rendezvous)
        {
            rendezvous.close();
        }
        if (null != driver)
        {
            driver.close();
        }
        if (null != jobFolder)
        {
            context.jobObserver().ranksEnded();
            deleteJobFolder();
        }
    }

    /**
     * The job's private folder: the media driver's directory, and the ranks' emulated devices where it has room for
     * them (unless the environment names another folder for those).
     */
    private JobFolder createJobFolder()
    {
        final JobFolder folder;
        try
        {
            folder = JobFolder.create();
        }
        catch (final RuntimeException ex)
        {
            throw new LaunchException("could not create the job's folder: " + ex.getMessage(), ex);
        }
        final Path emulated = folder.emulatedDeviceDirectory();
        final String variable = DeviceContext.EMULATED_DIRECTORY_VARIABLE;
        if (null != emulated && null == System.getenv(variable) && !context.environment().containsKey(variable))
        {
            context.environment(variable, emulated.toString());
            emulatedDirectoryGiven = true;
        }
        return folder;
    }

    private void deleteJobFolder()
    {
        if (emulatedDirectoryGiven)
        {
            context.environment().remove(DeviceContext.EMULATED_DIRECTORY_VARIABLE);
        }
        if (null != trace)
        {
            trace.release();
        }
        try
        {
            jobFolder.close();
        }
        catch (final RuntimeException ex)
        {
            LOG.warn("job {}: could not delete {}: {}", context.jobId(), jobFolder.path(), ex.getMessage());
        }
    }

    private int exitStatus()
    {
        if (timedOut)
        {
            return ExitStatus.TIMED_OUT;
        }
        int worst = 0;
        for (final RankProcess process : ranks)
        {
            if (!process.endedByLauncher())
            {
                worst = Math.max(worst, process.exitStatus());
            }
        }
        if (worst != 0 && null != firstFailure)
        {
            report("job " + context.jobId() + " failed with exit status " + worst + "; first failure: " +
                new FirstFailure(ranks, events.lostPeers()).describe(firstFailure));
        }
        return worst;
    }

    private int exportTrace(final int status)
    {
        return null == trace ? status : trace.export(status, this::report);
    }

    private void recordDescendants()
    {
        ranks.forEach(RankProcess::recordDescendants);
    }

    private String describeRunning()
    {
        final StringJoiner running = new StringJoiner(", ");
        int count = 0;
        for (final RankProcess process : ranks)
        {
            if (process.isAlive())
            {
                count++;
                running.add(process.rank() + " (pid " + process.pid() + ", " + process.observeState() + ")");
            }
        }
        return count == 0 ? null : (count == 1 ? "rank " : "ranks ") + running;
    }

    private String describeNotStarted()
    {
        final int first = ranks.size();
        final int last = context.localCount() - 1;
        if (first > last)
        {
            return null;
        }
        if (first == last)
        {
            return "rank " + context.globalRank(first);
        }
        if (context.globalRank(last) - context.globalRank(first) == last - first)
        {
            return "ranks " + context.globalRank(first) + " to " + context.globalRank(last);
        }
        final StringJoiner names = new StringJoiner(", ", "ranks ", "");
        for (int i = first; i <= last; i++)
        {
            names.add(Integer.toString(context.globalRank(i)));
        }
        return names.toString();
    }

    private String describeLosses()
    {
        final StringBuilder losses = new StringBuilder();
        events.lostPeers().forEach((rank, loss) -> losses.append("; rank ").append(rank).append(" lost rank ")
            .append(loss.peer()).append(" (").append(loss.reason()).append(")"));
        return losses.toString();
    }

    private long pollMillis()
    {
        long waitNs = TimeUnit.MILLISECONDS.toNanos(POLL_MS);
        final long nowNs = System.nanoTime();
        if (!timedOut && null != context.timeout())
        {
            waitNs = Math.min(waitNs, launchNs + context.timeout().toNanos() - nowNs);
        }
        if (endScheduled)
        {
            waitNs = Math.min(waitNs, endAtNs - nowNs);
        }
        return Math.max(1, TimeUnit.NANOSECONDS.toMillis(waitNs));
    }

    private static long remainingMillis(final long deadlineNs)
    {
        return Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadlineNs - System.nanoTime()));
    }

    private void onShutdown()
    {
        final String running = describeRunning();
        if (null != running)
        {
            report("shutting down; ending " + running);
        }
        abort();
    }

    private void report(final String message)
    {
        synchronized (context.err())
        {
            context.err().println("stagecoach: " + message);
            context.err().flush();
        }
    }

    private void removeShutdownHook()
    {
        try
        {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        }
        catch (final IllegalStateException ignore)
        {
            // the JVM is shutting down: the hook has run or is running
        }
    }
}
