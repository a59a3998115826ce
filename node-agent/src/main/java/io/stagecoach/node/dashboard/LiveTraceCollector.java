package io.stagecoach.node.dashboard;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import io.stagecoach.pipeline.trace.LiveTraceFile;
import io.stagecoach.pipeline.trace.LiveTraceReader;
import io.stagecoach.pipeline.transport.aeron.DaemonThreads;
import org.agrona.CloseHelper;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.SleepingIdleStrategy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the live trace files of a job's ranks on this node ({@code rank-<rank>.stagelive} in a live folder) into a
 * {@link LiveTraceSink} while the job runs: a daemon thread that looks for new files every half second and takes what
 * each ring holds every few milliseconds. The launcher's dashboard reads into the job's {@link JobTrace}; a node agent
 * reads into the trace of the job on its dashboard, or forwards to the agent that runs the job.
 */
public final class LiveTraceCollector implements AutoCloseable
{
    private static final Logger LOG = LoggerFactory.getLogger(LiveTraceCollector.class);
    private static final long IDLE_NS = TimeUnit.MILLISECONDS.toNanos(5);
    private static final long SCAN_NS = TimeUnit.MILLISECONDS.toNanos(500);
    private static final int BATCH_RECORDS = 4_096;

    private final ReadAgent agent;
    private final AgentRunner runner;

    private LiveTraceCollector(final ReadAgent agent, final AgentRunner runner)
    {
        this.agent = agent;
        this.runner = runner;
    }

    /**
     * @param folder the job's live folder, private to this user.
     * @param jobId  the job's id, for the thread's name and the log.
     * @param sink   told of every record, then of the end.
     * @return the running collector, to be closed once the job's ranks have ended.
     */
    public static LiveTraceCollector start(final Path folder, final String jobId, final LiveTraceSink sink)
    {
        final ReadAgent agent = new ReadAgent(folder, jobId, sink);
        final AgentRunner runner = new AgentRunner(new SleepingIdleStrategy(IDLE_NS),
            error -> LOG.warn("live trace of job {}: {}", jobId, error.toString()), null, agent);
        AgentRunner.startOnThread(runner, DaemonThreads.factory(agent.roleName()));
        return new LiveTraceCollector(agent, runner);
    }

    /**
     * Takes what the rings still hold, unmaps them and tells the sink the end. Call before the live folder goes.
     */
    public void close()
    {
        CloseHelper.close(runner);
        agent.sink.end();
    }

    private static final class ReadAgent implements Agent
    {
        private final Path folder;
        private final String jobId;
        private final LiveTraceSink sink;
        private final List<LiveTraceReader> readers = new ArrayList<>();
        private final Set<Path> seen = new HashSet<>();
        private long lastScanNs = System.nanoTime() - SCAN_NS;

        ReadAgent(final Path folder, final String jobId, final LiveTraceSink sink)
        {
            this.folder = folder;
            this.jobId = jobId;
            this.sink = sink;
        }

        public int doWork() throws IOException
        {
            final long nowNs = System.nanoTime();
            if (nowNs - lastScanNs >= SCAN_NS)
            {
                lastScanNs = nowNs;
                scan();
            }
            int work = 0;
            for (final LiveTraceReader reader : readers)
            {
                work += reader.read(sink, BATCH_RECORDS);
                sink.droppedByRank(reader.rank(), reader.droppedRecords());
            }
            sink.flush();
            return work;
        }

        public void onClose()
        {
            try
            {
                scan();
                for (final LiveTraceReader reader : readers)
                {
                    while (reader.read(sink, BATCH_RECORDS) > 0)
                    {
                        sink.droppedByRank(reader.rank(), reader.droppedRecords());
                    }
                }
                sink.flush();
            }
            catch (final IOException ex)
            {
                LOG.warn("live trace of job {}: {}", jobId, ex.toString());
            }
            readers.forEach(CloseHelper::quietClose);
            readers.clear();
        }

        public String roleName()
        {
            return "stagecoach-dashboard-" + jobId;
        }

        private void scan() throws IOException
        {
            if (!Files.isDirectory(folder, LinkOption.NOFOLLOW_LINKS))
            {
                return;
            }
            try (DirectoryStream<Path> entries = Files.newDirectoryStream(folder))
            {
                for (final Path entry : entries)
                {
                    if (!seen.contains(entry) && LiveTraceFile.isLiveFileName(entry) &&
                        Files.isRegularFile(entry, LinkOption.NOFOLLOW_LINKS))
                    {
                        open(entry);
                    }
                }
            }
        }

        private void open(final Path file)
        {
            try
            {
                final LiveTraceReader reader = LiveTraceReader.open(file);
                if (null != reader)
                {
                    seen.add(file);
                    readers.add(reader);
                }
            }
            catch (final IOException ex)
            {
                seen.add(file);
                LOG.warn("live trace of job {}: left out {}", jobId, ex.getMessage());
            }
        }
    }
}
