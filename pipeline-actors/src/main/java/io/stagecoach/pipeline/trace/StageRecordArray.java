package io.stagecoach.pipeline.trace;

import org.agrona.concurrent.UnsafeBuffer;

/**
 * One rank's stage records copied into memory, for an export of records that no file holds (a live view's).
 */
public final class StageRecordArray implements StageRecordSource
{
    private final int rank;
    private final UnsafeBuffer records;
    private final int recordCount;
    private final long droppedRecords;
    private final long epochOffsetNs;
    private final StageRecord record = new StageRecord();

    /**
     * @param rank           whose records they are.
     * @param records        {@code recordCount} records of {@link StageRecord#LENGTH} bytes, one after another.
     * @param recordCount    records in it.
     * @param droppedRecords records of the rank that are not among them.
     * @param epochOffsetNs  the rank's wall clock minus its {@link System#nanoTime()}.
     */
    public StageRecordArray(
        final int rank,
        final UnsafeBuffer records,
        final int recordCount,
        final long droppedRecords,
        final long epochOffsetNs)
    {
        if ((long)recordCount * StageRecord.LENGTH > records.capacity())
        {
            throw new IllegalArgumentException(recordCount + " records do not fit in " + records.capacity() +
                " bytes");
        }
        this.rank = rank;
        this.records = records;
        this.recordCount = recordCount;
        this.droppedRecords = droppedRecords;
        this.epochOffsetNs = epochOffsetNs;
    }

    public int rank()
    {
        return rank;
    }

    public int recordCount()
    {
        return recordCount;
    }

    public StageRecord record(final int index)
    {
        return record.wrap(records, index * StageRecord.LENGTH);
    }

    public long droppedRecords()
    {
        return droppedRecords;
    }

    public long epochOffsetNs()
    {
        return epochOffsetNs;
    }
}
