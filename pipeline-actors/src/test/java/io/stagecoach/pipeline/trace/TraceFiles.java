package io.stagecoach.pipeline.trace;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;

import org.agrona.concurrent.UnsafeBuffer;

/**
 * Writes rank trace files for tests, records given as {@code {transfer, chunk, stage ordinal, start, end, bytes,
 * device}}.
 */
final class TraceFiles
{
    private TraceFiles()
    {
    }

    static Path write(final Path folder, final int rank, final long dropped, final long[]... records)
        throws IOException
    {
        final UnsafeBuffer scratch = new UnsafeBuffer(ByteBuffer.allocateDirect(StageRecord.LENGTH));
        final StageRecord record = new StageRecord().wrap(scratch, 0);
        try (StageTraceFileWriter writer = StageTraceFileWriter.create(folder, rank, 4))
        {
            for (final long[] fields : records)
            {
                StageRecord.encode(scratch, 0, rank, fields[0], (int)fields[1], Stage.PACK, fields[3], fields[4],
                    fields[5], (int)fields[6]);
                scratch.putInt(StageRecord.STAGE_OFFSET, (int)fields[2], StageRecord.ORDER);
                writer.append(record);
            }
            writer.droppedRecords(dropped);
            return writer.file();
        }
    }

    static long[] record(
        final long transfer, final int chunk, final Stage stage, final long startNs, final long endNs, final long bytes)
    {
        return new long[]{ transfer, chunk, stage.ordinal(), startNs, endNs, bytes, 0 };
    }
}
