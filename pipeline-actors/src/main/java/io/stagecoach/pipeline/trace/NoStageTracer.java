package io.stagecoach.pipeline.trace;

/**
 * {@link StageTracer#OFF}: a call that returns at once.
 */
final class NoStageTracer implements StageTracer
{
    public boolean isEnabled()
    {
        return false;
    }

    public void record(
        final long transferId,
        final int chunk,
        final Stage stage,
        final long startNs,
        final long endNs,
        final long bytes,
        final int device)
    {
    }

    public String toString()
    {
        return "StageTracer.OFF";
    }
}
