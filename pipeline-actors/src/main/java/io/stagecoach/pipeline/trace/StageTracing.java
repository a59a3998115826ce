package io.stagecoach.pipeline.trace;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;

import io.stagecoach.pipeline.transport.aeron.DaemonThreads;
import org.agrona.CloseHelper;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.SleepingIdleStrategy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A rank's stage tracing, from its start to its close: the {@link StageRing} the pipeline records into, and a daemon
 * thread that drains it every {@link StageTraceContext#drainPeriodNs()} into the rank's trace file and to a live
 * handler, and into the rank's live file in shared memory (read while the job runs). Off (no folder, no live folder,
 * no handler), it is nothing but {@link StageTracer#OFF}: no ring, no thread, no file.
 * <pre>{@code
 * final StageTracing tracing = StageTracing.start(new StageTraceContext().rank(rank).directory(folder));
 * final StageTracer tracer = tracing.tracer();   // for the pipeline
 * ...                                            // once nothing records any more:
 * tracing.close();                               // drains the rest and closes the file
 * }</pre>
 */
public final class StageTracing implements AutoCloseable
{
    private static final Logger LOG = LoggerFactory.getLogger(StageTracing.class);
    private static final StageTracing OFF = new StageTracing(StageTracer.OFF, null, null);

    private final StageTracer tracer;
    private final AgentRunner runner;
    private final Path file;

    private StageTracing(final StageTracer tracer, final AgentRunner runner, final Path file)
    {
        this.tracer = tracer;
        this.runner = runner;
        this.file = file;
    }

    /**
     * Starts tracing as configured: creates the ring, the rank's file and the drain thread when the context has
     * somewhere for records to go.
     *
     * @param context the settings; concluded here.
     * @return the tracing, to be closed once the pipeline records no more.
     * @throws IllegalArgumentException naming a setting that cannot be used.
     * @throws IllegalStateException    naming the folder when it is not private to this user.
     * @throws UncheckedIOException     naming the file when it exists already or cannot be created.
     */
    public static StageTracing start(final StageTraceContext context)
    {
        context.conclude();
        if (!context.isEnabled())
        {
            return OFF;
        }
        final StageRing ring = new StageRing(context.rank(), context.ringCapacityBytes());
        final StageTraceFileWriter writer = createWriter(context);
        final LiveTraceWriter liveFile = createLiveFile(context);
        final StageTraceAgent agent = new StageTraceAgent(ring, writer, liveFile, context.recordHandler());
        final AgentRunner runner = new AgentRunner(new SleepingIdleStrategy(context.drainPeriodNs()),
            error -> LOG.warn("rank {} stage trace: {}", context.rank(), error.toString()), null, agent);
        AgentRunner.startOnThread(runner, DaemonThreads.factory(agent.roleName()));
        return new StageTracing(ring, runner, null == writer ? null : writer.file());
    }

    /**
     * @return where the pipeline records its stages: the ring, or {@link StageTracer#OFF}.
     */
    public StageTracer tracer()
    {
        return tracer;
    }

    /**
     * @return records dropped so far because the ring was full.
     */
    public long droppedRecords()
    {
        return tracer instanceof StageRing ? ((StageRing)tracer).droppedRecords() : 0;
    }

    /**
     * @return the rank's trace file, or null when it writes none.
     */
    public Path file()
    {
        return file;
    }

    /**
     * Stops the drain thread after it drained what is in the ring and closed the file. Records made afterwards are
     * lost. Safe to call more than once.
     */
    public void close()
    {
        CloseHelper.close(runner);
    }

    public String toString()
    {
        return "StageTracing{" + tracer + (null == file ? "" : ", file=" + file) + "}";
    }

    private static LiveTraceWriter createLiveFile(final StageTraceContext context)
    {
        if (null == context.liveDirectory())
        {
            return null;
        }
        try
        {
            return LiveTraceWriter.create(context.liveDirectory(), context.rank(), context.liveRingCapacityBytes());
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex.getMessage(), ex);
        }
    }

    private static StageTraceFileWriter createWriter(final StageTraceContext context)
    {
        if (null == context.directory())
        {
            return null;
        }
        try
        {
            return StageTraceFileWriter.create(context.directory(), context.rank(), StageTraceAgent.BATCH_RECORDS);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex.getMessage(), ex);
        }
    }
}
