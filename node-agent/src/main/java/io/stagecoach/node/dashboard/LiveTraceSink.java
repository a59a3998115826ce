package io.stagecoach.node.dashboard;

import io.stagecoach.pipeline.trace.StageRecordHandler;

/**
 * Where a {@link LiveTraceCollector} puts what it reads from the ranks' live files, on its one thread: a job's
 * {@link JobTrace} on this node's dashboard, or a forwarder to the dashboard of the agent that runs the job.
 */
public interface LiveTraceSink extends StageRecordHandler
{
    /**
     * Notes the records a rank dropped because its live ring was full.
     *
     * @param rank    the rank.
     * @param dropped its count so far.
     */
    void droppedByRank(int rank, long dropped);

    /**
     * Told after each pass over the rings, whether or not it took records.
     */
    default void flush()
    {
    }

    /**
     * Told once, after the last records: the ranks have ended.
     */
    void end();
}
