package io.stagecoach.pipeline.trace;

import java.util.Arrays;
import java.util.Comparator;

import org.agrona.collections.LongArrayList;

/**
 * The tracks of one rank's records: one per stage, and more for a stage whose chunks overlap in time (several in
 * flight), since the events of one track must nest. Each record goes to the first lane of its stage that is free
 * when it starts. Track ids: lane 0 of stage s is {@code s + 1}, lane k is {@code s + 1 + k * Stage.COUNT}.
 */
final class StageLanes
{
    /** Lanes of one stage beyond which records share the last one. */
    static final int MAX_LANES = 4096;

    private final Integer[] order;
    private final int[] laneOf;
    private final int[] lanesPerStage = new int[Stage.COUNT];
    private final int invalid;

    private StageLanes(final Integer[] order, final int[] laneOf, final int invalid)
    {
        this.order = order;
        this.laneOf = laneOf;
        this.invalid = invalid;
    }

    /**
     * @param reader a rank's records.
     * @return its valid records in order of stage and start, each with its lane.
     */
    static StageLanes assign(final StageRecordSource reader)
    {
        final int count = reader.recordCount();
        final int[] stages = new int[count];
        final long[] starts = new long[count];
        final long[] ends = new long[count];
        final Integer[] valid = new Integer[count];
        int validCount = 0;
        for (int i = 0; i < count; i++)
        {
            final StageRecord record = reader.record(i);
            stages[i] = record.stageOrdinal();
            starts[i] = record.startNs();
            ends[i] = record.endNs();
            if (isValid(record))
            {
                valid[validCount++] = i;
            }
        }
        final Integer[] order = Arrays.copyOf(valid, validCount);
        Arrays.sort(order, Comparator.<Integer>comparingInt(i -> stages[i]).thenComparingLong(i -> starts[i])
            .thenComparingLong(i -> ends[i]));
        final StageLanes lanes = new StageLanes(order, new int[count], count - validCount);
        lanes.fill(stages, starts, ends);
        return lanes;
    }

    /**
     * @param record a record.
     * @return whether it names a stage and does not end before it starts.
     */
    static boolean isValid(final StageRecord record)
    {
        final int stage = record.stageOrdinal();
        return stage >= 0 && stage < Stage.COUNT && record.endNs() >= record.startNs();
    }

    /**
     * @param stage a stage.
     * @param lane  one of its lanes.
     * @return the track's thread id.
     */
    static int tid(final Stage stage, final int lane)
    {
        return stage.ordinal() + 1 + lane * Stage.COUNT;
    }

    /**
     * @param stage a stage.
     * @param lane  one of its lanes.
     * @return the track's place among the rank's tracks.
     */
    static int sortIndex(final Stage stage, final int lane)
    {
        return stage.ordinal() * MAX_LANES + lane;
    }

    /**
     * @param stage a stage.
     * @param lane  one of its lanes.
     * @return the track's name: the stage's, then a number from 2 for further lanes.
     */
    static String name(final Stage stage, final int lane)
    {
        return 0 == lane ? stage.name() : stage.name() + " " + (lane + 1);
    }

    int validCount()
    {
        return order.length;
    }

    int invalidCount()
    {
        return invalid;
    }

    int recordAt(final int position)
    {
        return order[position];
    }

    int laneOf(final int record)
    {
        return laneOf[record];
    }

    int lanes(final Stage stage)
    {
        return Math.max(1, lanesPerStage[stage.ordinal()]);
    }

    private void fill(final int[] stages, final long[] starts, final long[] ends)
    {
        final LongArrayList laneEnds = new LongArrayList();
        int stage = -1;
        for (final int record : order)
        {
            if (stages[record] != stage)
            {
                stage = stages[record];
                laneEnds.clear();
            }
            final int lane = freeLane(laneEnds, starts[record]);
            laneEnds.setLong(lane, Math.max(laneEnds.getLong(lane), ends[record]));
            laneOf[record] = lane;
            lanesPerStage[stage] = Math.max(lanesPerStage[stage], lane + 1);
        }
    }

    private static int freeLane(final LongArrayList laneEnds, final long startNs)
    {
        for (int lane = 0; lane < laneEnds.size(); lane++)
        {
            if (laneEnds.getLong(lane) <= startNs)
            {
                return lane;
            }
        }
        if (laneEnds.size() < MAX_LANES)
        {
            laneEnds.addLong(Long.MIN_VALUE);
        }
        return laneEnds.size() - 1;
    }
}
