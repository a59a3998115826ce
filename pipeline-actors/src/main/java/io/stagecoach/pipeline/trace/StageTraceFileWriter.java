package io.stagecoach.pipeline.trace;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;

import io.stagecoach.protocol.host.PrivateDirectory;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Appends records to a rank's new trace file through a batch in direct memory: one write per batch, none per
 * record, and the header's count of dropped records rewritten in place when it changes.
 */
final class StageTraceFileWriter implements AutoCloseable
{
    private final Path file;
    private final FileChannel channel;
    private final ByteBuffer batch;
    private final UnsafeBuffer batchBuffer;
    private final ByteBuffer dropped = ByteBuffer.allocateDirect(Long.BYTES).order(StageRecord.ORDER);
    private long droppedWritten;
    private long recordsWritten;

    private StageTraceFileWriter(final Path file, final FileChannel channel, final int batchRecords)
    {
        this.file = file;
        this.channel = channel;
        this.batch = ByteBuffer.allocateDirect(batchRecords * StageRecord.LENGTH);
        this.batchBuffer = new UnsafeBuffer(batch);
    }

    /**
     * Creates the rank's file (never an existing one, never through a link), mode 0600, and writes its header.
     *
     * @param directory    the trace folder.
     * @param rank         whose records it holds.
     * @param batchRecords records written at a time.
     * @return the writer.
     * @throws IOException naming the file when it exists or cannot be written.
     */
    static StageTraceFileWriter create(final Path directory, final int rank, final int batchRecords)
        throws IOException
    {
        final Path file = StageTraceFile.of(directory, rank);
        final FileChannel channel;
        try
        {
            channel = PrivateDirectory.createFile(file);
        }
        catch (final IOException ex)
        {
            throw new IOException("cannot create the stage trace file " + file + ": " + ex, ex);
        }
        final StageTraceFileWriter writer = new StageTraceFileWriter(file, channel, batchRecords);
        try
        {
            writer.writeHeader(rank);
        }
        catch (final IOException ex)
        {
            channel.close();
            throw new IOException("cannot write the header of " + file + ": " + ex, ex);
        }
        return writer;
    }

    void append(final StageRecord record) throws IOException
    {
        if (batch.position() == batch.capacity())
        {
            flush();
        }
        final int position = batch.position();
        batchBuffer.putBytes(position, record.buffer(), record.offset(), StageRecord.LENGTH);
        batch.position(position + StageRecord.LENGTH);
    }

    void flush() throws IOException
    {
        batch.flip();
        recordsWritten += batch.remaining() / StageRecord.LENGTH;
        while (batch.hasRemaining())
        {
            channel.write(batch);
        }
        batch.clear();
    }

    void droppedRecords(final long count) throws IOException
    {
        if (count != droppedWritten)
        {
            dropped.putLong(0, count);
            dropped.clear();
            while (dropped.hasRemaining())
            {
                channel.write(dropped, StageTraceFile.DROPPED_OFFSET + dropped.position());
            }
            droppedWritten = count;
        }
    }

    long recordsWritten()
    {
        return recordsWritten;
    }

    Path file()
    {
        return file;
    }

    public void close() throws IOException
    {
        try (channel)
        {
            flush();
        }
    }

    private void writeHeader(final int rank) throws IOException
    {
        final ByteBuffer header = ByteBuffer.allocateDirect(StageTraceFile.HEADER_LENGTH);
        StageTraceFile.encodeHeader(new UnsafeBuffer(header), rank, StageTraceFile.epochOffsetNs(),
            ProcessHandle.current().pid());
        while (header.hasRemaining())
        {
            channel.write(header);
        }
    }
}
