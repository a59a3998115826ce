package io.stagecoach.pipeline.trace;

/**
 * Where the pipeline records the stages of its chunks, from any thread: stage actors, the device's completion
 * thread, the engine's thread. Recording never blocks and never allocates; a record that finds no room is dropped
 * and counted.
 * <p>
 * Timestamps are {@link System#nanoTime()}, which is {@code CLOCK_MONOTONIC} on Linux: comparable between the
 * processes of one machine. When tracing is off the tracer is {@link #OFF}, whose {@code record} does nothing; a
 * caller that takes timestamps only for the trace checks {@link #isEnabled()} first, so that tracing off costs no
 * clock reads either:
 * <pre>{@code
 * final long startNs = tracer.isEnabled() ? System.nanoTime() : 0;
 * // issue the chunk's work; on its completion:
 * if (tracer.isEnabled())
 * {
 *     tracer.record(transferId, chunk, Stage.PACK, startNs, System.nanoTime(), chunkBytes, device);
 * }
 * }</pre>
 */
public interface StageTracer
{
    /**
     * The tracer of a rank that does not trace: records nothing.
     */
    StageTracer OFF = new NoStageTracer();

    /**
     * @return whether records are kept; false for {@link #OFF}.
     */
    boolean isEnabled();

    /**
     * Records one stage of one chunk.
     *
     * @param transferId the transfer the chunk belongs to, as the rank numbers its transfers.
     * @param chunk      the chunk's number within the transfer, from 0.
     * @param stage      the stage that ran.
     * @param startNs    {@link System#nanoTime()} when the stage's work was issued.
     * @param endNs      {@link System#nanoTime()} when its completion was seen.
     * @param bytes      bytes the stage moved.
     * @param device     ordinal of the device it ran on or for.
     */
    void record(long transferId, int chunk, Stage stage, long startNs, long endNs, long bytes, int device);

    /**
     * Records that a message took its path to or from a peer. A transfer whose path changes (a one-sided send that
     * its receiver clears to go staged instead) is recorded again with the new one. Once per message, never per
     * chunk; for a live view only, not written to the rank's trace file.
     *
     * @param transferId the transfer, as the rank numbers its transfers.
     * @param peer       the other rank.
     * @param path       the path it takes.
     * @param receiving  whether this rank receives it.
     * @param bytes      packed bytes of the message.
     * @param chunks     chunks of a staged transfer, 1 otherwise.
     * @param startNs    {@link System#nanoTime()} when it took the path.
     */
    default void transferBegun(
        final long transferId,
        final int peer,
        final TracedPath path,
        final boolean receiving,
        final long bytes,
        final int chunks,
        final long startNs)
    {
    }

    /**
     * Records that a message completed or failed.
     *
     * @param transferId the transfer, as the rank numbers its transfers.
     * @param peer       the other rank.
     * @param path       the path it took.
     * @param receiving  whether this rank received it.
     * @param bytes      packed bytes of the message.
     * @param startNs    {@link System#nanoTime()} when it took the path, as recorded by
     *                   {@link #transferBegun}.
     * @param endNs      {@link System#nanoTime()} when it completed or failed.
     * @param failed     whether it failed.
     */
    default void transferEnded(
        final long transferId,
        final int peer,
        final TracedPath path,
        final boolean receiving,
        final long bytes,
        final long startNs,
        final long endNs,
        final boolean failed)
    {
    }
}
