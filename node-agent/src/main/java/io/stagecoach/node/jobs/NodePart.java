package io.stagecoach.node.jobs;

import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import io.stagecoach.node.launch.JobEvents;
import io.stagecoach.node.launch.JobObserver;
import io.stagecoach.node.launch.LaunchContext;
import io.stagecoach.node.launch.LaunchException;
import io.stagecoach.node.launch.Launcher;
import io.stagecoach.node.launch.PeerLoss;
import org.apache.pekko.actor.typed.ActorRef;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One node's ranks of a job across nodes: a {@link Launcher} of those ranks on a thread of its own, with the node's
 * media driver, the job's rendezvous (run where the job was submitted), its output, rank exits and end sent to the
 * job's coordinator.
 */
final class NodePart
{
    private static final Logger LOG = LoggerFactory.getLogger(NodePart.class);

    private final String jobId;
    private final String node;
    private final ActorRef<JobCoordinator.Command> coordinator;
    private final Launcher launcher;
    private final Thread thread;
    private final Runnable onEnd;
    private final PrintStream[] output;

    private NodePart(final String jobId, final String node, final ActorRef<JobCoordinator.Command> coordinator,
        final Launcher launcher, final Runnable onEnd, final PrintStream... output)
    {
        this.output = output;
        this.jobId = jobId;
        this.node = node;
        this.coordinator = coordinator;
        this.launcher = launcher;
        this.onEnd = onEnd;
        this.thread = new Thread(this::run, "stagecoach-job-" + jobId);
        this.thread.setDaemon(true);
    }

    /**
     * Starts the node's ranks; tells the coordinator {@link JobCoordinator.PartEnded} when they have all exited, or
     * at once when they cannot be started.
     *
     * @param start          the job's part for this node.
     * @param node           this node's name.
     * @param aeronDirectory the node's media driver.
     * @param environment    variables of this node's ranks besides the job's (UDP address, MPS).
     * @param observer       what watches the part's ranks (the node's dashboard), or {@link JobObserver#NONE}.
     * @param onEnd          run once the part has ended, after the coordinator was told.
     * @return the part, or null where it could not start (the coordinator was told why).
     */
    static NodePart start(final JobsBehavior.StartPart start, final String node, final Path aeronDirectory,
        final Map<String, String> environment, final JobObserver observer, final Runnable onEnd)
    {
        final JobRequest request = start.request();
        final ActorRef<JobCoordinator.Command> coordinator = start.coordinator();
        final PrintStream out = LineSink.printStream(line -> coordinator.tell(
            new JobCoordinator.PartOutput(node, false, line)));
        final PrintStream err = LineSink.printStream(line -> coordinator.tell(
            new JobCoordinator.PartOutput(node, true, line)));
        final LaunchContext context = new LaunchContext()
            .size(request.size())
            .nodeRanks(start.ranks())
            .program(request.program())
            .programArguments(request.arguments())
            .tagOutput(request.tagOutput())
            .oversubscribe(true)
            .jvmOptions(request.jvmOptions())
            .jobId(start.jobId())
            .nodeName(node)
            .aeronDirectory(aeronDirectory)
            .jobEvents(new Events(start, node))
            .jobObserver(observer)
            .output(out, err);
        request.environment().forEach(context::environment);
        environment.forEach(context::environment);
        if (request.timeoutMs() > 0)
        {
            context.timeout(Duration.ofMillis(request.timeoutMs()));
        }
        if (!request.classPath().isEmpty())
        {
            context.classPath(System.getProperty("java.class.path") + java.io.File.pathSeparator +
                request.classPath());
        }
        try
        {
            final NodePart part = new NodePart(start.jobId(), node, coordinator, Launcher.prepare(context), onEnd, out,
                err);
            part.thread.start();
            return part;
        }
        catch (final LaunchException | IllegalArgumentException ex)
        {
            coordinator.tell(new JobCoordinator.PartEnded(node, 1, ex.getMessage()));
            onEnd.run();
            return null;
        }
    }

    /**
     * Ends the node's ranks (a rank of another node failed, the job was killed, or its coordinator is gone).
     *
     * @param reason why, for the report.
     */
    void end(final String reason)
    {
        launcher.end(reason);
    }

    /**
     * @param timeoutMs how long to wait.
     * @return true where the part has ended.
     */
    boolean awaitEnd(final long timeoutMs)
    {
        try
        {
            thread.join(timeoutMs);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
        return !thread.isAlive();
    }

    private void run()
    {
        int status = 1;
        String message = "";
        try
        {
            status = launcher.run();
        }
        catch (final LaunchException ex)
        {
            message = ex.getMessage();
        }
        catch (final RuntimeException ex)
        {
            LOG.error("job {}: the ranks of node {} failed", jobId, node, ex);
            message = ex.toString();
        }
        finally
        {
            for (final PrintStream stream : output)
            {
                stream.close();
            }
            coordinator.tell(new JobCoordinator.PartEnded(node, status, message));
            onEnd.run();
        }
    }

    /**
     * The job's rendezvous as this node's launcher sees it: its address and secret, and rank exits sent to the
     * coordinator, which reports them there.
     */
    private static final class Events implements JobEvents
    {
        private final JobsBehavior.StartPart start;
        private final String node;

        private Events(final JobsBehavior.StartPart start, final String node)
        {
            this.start = start;
            this.node = node;
        }

        public String rendezvousAddress()
        {
            return start.rendezvous();
        }

        public String secretText()
        {
            return start.secret();
        }

        public void rankExited(final int rank, final int exitStatus, final String description)
        {
            start.coordinator().tell(new JobCoordinator.PartRankExited(node, rank, exitStatus, description));
        }

        public Map<Integer, PeerLoss> lostPeers()
        {
            return Map.of();
        }
    }

}
