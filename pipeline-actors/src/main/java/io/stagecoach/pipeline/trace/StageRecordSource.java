package io.stagecoach.pipeline.trace;

/**
 * One rank's stage records, by index: a rank's trace file ({@link StageTraceFileReader}) or records kept in memory
 * ({@link StageRecordArray}), for {@link ChromeTraceExport} to merge.
 */
public interface StageRecordSource
{
    /**
     * @return the rank whose records it holds.
     */
    int rank();

    /**
     * @return records it holds.
     */
    int recordCount();

    /**
     * @param index from 0 to {@link #recordCount()} - 1.
     * @return the record, through a flyweight re-wrapped by the next call.
     */
    StageRecord record(int index);

    /**
     * @return records the rank recorded that never reached this source (a full ring).
     */
    long droppedRecords();

    /**
     * @return the rank's wall clock minus its {@link System#nanoTime()}, in nanoseconds.
     */
    long epochOffsetNs();

    /**
     * @return bytes of a record cut short at the end (a rank killed while writing its file); 0 for none.
     */
    default int partialBytes()
    {
        return 0;
    }
}
