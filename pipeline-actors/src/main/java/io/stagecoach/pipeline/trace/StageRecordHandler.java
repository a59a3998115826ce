package io.stagecoach.pipeline.trace;

/**
 * Told of each record a drain or a reader takes, on the thread that drains or reads.
 */
@FunctionalInterface
public interface StageRecordHandler
{
    /**
     * @param record valid only during the call.
     */
    void onRecord(StageRecord record);

    /**
     * Told of a transfer record that a drain takes (trace files hold none); ignored unless overridden.
     *
     * @param record valid only during the call.
     */
    default void onTransfer(TransferRecord record)
    {
    }
}
