package io.stagecoach.pipeline.trace;

import java.io.IOException;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;

import org.agrona.IoUtil;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Reads a rank's {@linkplain StageTraceFile trace file}: its header, then its records in file order or by index,
 * through a read-only mapping (files up to 2 GiB, about 44 million records).
 */
public final class StageTraceFileReader implements StageRecordSource, AutoCloseable
{
    private final Path file;
    private final MappedByteBuffer mapping;
    private final UnsafeBuffer buffer;
    private final StageRecord record = new StageRecord();
    private final int recordCount;

    private StageTraceFileReader(final Path file, final MappedByteBuffer mapping)
    {
        this.file = file;
        this.mapping = mapping;
        this.buffer = new UnsafeBuffer(mapping);
        this.recordCount = (buffer.capacity() - StageTraceFile.HEADER_LENGTH) / StageRecord.LENGTH;
    }

    /**
     * Opens a trace file, never through a symbolic link, and checks its header.
     *
     * @param file a rank's trace file.
     * @return its reader, to be closed.
     * @throws IOException naming the file when it cannot be read or is not a trace file of this version.
     */
    public static StageTraceFileReader open(final Path file) throws IOException
    {
        final MappedByteBuffer mapping = map(file);
        final StageTraceFileReader reader = new StageTraceFileReader(file, mapping);
        final String problem = reader.headerProblem();
        if (null != problem)
        {
            reader.close();
            throw new IOException(file + " is not a stage trace file of version " + StageTraceFile.VERSION + ": " +
                problem);
        }
        return reader;
    }

    /**
     * @return the rank that wrote it.
     */
    public int rank()
    {
        return buffer.getInt(StageTraceFile.RANK_OFFSET, StageRecord.ORDER);
    }

    /**
     * @return records the rank's ring had no room for, as of its last drain.
     */
    public long droppedRecords()
    {
        return buffer.getLong(StageTraceFile.DROPPED_OFFSET, StageRecord.ORDER);
    }

    /**
     * @return wall clock ns since 1970 minus {@link System#nanoTime()} in the rank's process.
     */
    public long epochOffsetNs()
    {
        return buffer.getLong(StageTraceFile.EPOCH_OFFSET_OFFSET, StageRecord.ORDER);
    }

    /**
     * @return the rank's process id.
     */
    public long pid()
    {
        return buffer.getLong(StageTraceFile.PID_OFFSET, StageRecord.ORDER);
    }

    /**
     * @return whole records in the file.
     */
    public int recordCount()
    {
        return recordCount;
    }

    /**
     * @return bytes at the end that do not make a whole record (a rank killed while writing).
     */
    public int partialBytes()
    {
        return (buffer.capacity() - StageTraceFile.HEADER_LENGTH) % StageRecord.LENGTH;
    }

    /**
     * @param index of a record, in [0, {@link #recordCount()}).
     * @return the flyweight, wrapped over it until the next call.
     */
    public StageRecord record(final int index)
    {
        if (index < 0 || index >= recordCount)
        {
            throw new IndexOutOfBoundsException("record " + index + " of " + recordCount + " in " + file);
        }
        return record.wrap(buffer, StageTraceFile.HEADER_LENGTH + index * StageRecord.LENGTH);
    }

    /**
     * @param handler told of every record in file order.
     * @return records read.
     */
    public int read(final StageRecordHandler handler)
    {
        for (int i = 0; i < recordCount; i++)
        {
            handler.onRecord(record(i));
        }
        return recordCount;
    }

    /**
     * @return the file.
     */
    public Path file()
    {
        return file;
    }

    /**
     * Unmaps the file.
     */
    public void close()
    {
        IoUtil.unmap(mapping);
    }

    private String headerProblem()
    {
        final byte[] magic = new byte[StageTraceFile.MAGIC.length];
        buffer.getBytes(0, magic, 0, Math.min(magic.length, buffer.capacity()));
        if (!Arrays.equals(magic, StageTraceFile.MAGIC))
        {
            return "it does not start with " + new String(StageTraceFile.MAGIC, StandardCharsets.US_ASCII);
        }
        if (buffer.capacity() < StageTraceFile.HEADER_LENGTH)
        {
            return "it holds " + buffer.capacity() + " bytes, less than the " + StageTraceFile.HEADER_LENGTH +
                "-byte header";
        }
        final int version = buffer.getInt(StageTraceFile.VERSION_OFFSET, StageRecord.ORDER);
        final int recordLength = buffer.getInt(StageTraceFile.RECORD_LENGTH_OFFSET, StageRecord.ORDER);
        if (version != StageTraceFile.VERSION || recordLength != StageRecord.LENGTH)
        {
            return "its version is " + version + " with " + recordLength + "-byte records, not " +
                StageTraceFile.VERSION + " with " + StageRecord.LENGTH;
        }
        return null;
    }

    private static MappedByteBuffer map(final Path file) throws IOException
    {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS))
        {
            final long size = channel.size();
            if (size > Integer.MAX_VALUE)
            {
                throw new IOException(file + " holds " + size + " bytes, more than the " + Integer.MAX_VALUE +
                    " a reader maps");
            }
            return channel.map(FileChannel.MapMode.READ_ONLY, 0, size);
        }
    }
}
