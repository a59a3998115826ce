package io.stagecoach.pipeline.trace;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;

import org.agrona.DirectBuffer;
import org.agrona.IoUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.OneToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;

/**
 * The rank's end of its {@linkplain LiveTraceFile live trace file}: told of each record its drain thread takes, it
 * copies the record into the shared ring, or counts it dropped when the reader has left no room. No allocation, no
 * wait, no system call per record.
 */
final class LiveTraceWriter implements StageRecordHandler, AutoCloseable
{
    private static final int RECORD_TYPE = 1;
    private static final int TRANSFER_TYPE = 2;

    private final Path file;
    private final MappedByteBuffer mapping;
    private final UnsafeBuffer header;
    private final OneToOneRingBuffer ring;
    private long droppedRecords;

    private LiveTraceWriter(final Path file, final MappedByteBuffer mapping, final int capacityBytes)
    {
        this.file = file;
        this.mapping = mapping;
        this.header = new UnsafeBuffer(mapping, 0, LiveTraceFile.HEADER_LENGTH);
        this.ring = new OneToOneRingBuffer(new UnsafeBuffer(mapping, LiveTraceFile.HEADER_LENGTH,
            capacityBytes + RingBufferDescriptor.TRAILER_LENGTH));
    }

    /**
     * Creates the rank's live file (never an existing one, never through a link), mode 0600, maps it and writes its
     * header, the magic last.
     *
     * @param directory     the live folder.
     * @param rank          whose records it carries.
     * @param capacityBytes of the ring, a power of two.
     * @return the writer, to be closed.
     * @throws IOException naming the file when it exists or cannot be created.
     */
    static LiveTraceWriter create(final Path directory, final int rank, final int capacityBytes) throws IOException
    {
        StageRing.checkCapacity(capacityBytes);
        final Path file = LiveTraceFile.of(directory, rank);
        final int length = LiveTraceFile.fileLength(capacityBytes);
        final MappedByteBuffer mapping;
        try (FileChannel channel = LiveTraceFile.create(file))
        {
            channel.truncate(length);
            channel.write(ByteBuffer.allocate(1), length - 1);
            mapping = LiveTraceFile.map(channel, length);
        }
        catch (final IOException ex)
        {
            throw new IOException("cannot create the live trace file " + file + ": " + ex, ex);
        }
        final LiveTraceWriter writer = new LiveTraceWriter(file, mapping, capacityBytes);
        writer.writeHeader(rank, capacityBytes);
        return writer;
    }

    public void onRecord(final StageRecord record)
    {
        offer(RECORD_TYPE, record.buffer(), record.offset());
    }

    public void onTransfer(final TransferRecord record)
    {
        offer(TRANSFER_TYPE, record.buffer(), record.offset());
    }

    /**
     * @return records dropped because the ring was full.
     */
    long droppedRecords()
    {
        return droppedRecords;
    }

    Path file()
    {
        return file;
    }

    public void close()
    {
        IoUtil.unmap(mapping);
    }

    private void offer(final int type, final DirectBuffer buffer, final int offset)
    {
        if (!ring.write(type, buffer, offset, StageRecord.LENGTH))
        {
            header.putLongOrdered(LiveTraceFile.DROPPED_OFFSET, ++droppedRecords);
        }
    }

    private void writeHeader(final int rank, final int capacityBytes)
    {
        header.putInt(LiveTraceFile.VERSION_OFFSET, LiveTraceFile.VERSION, StageRecord.ORDER);
        header.putInt(LiveTraceFile.CAPACITY_OFFSET, capacityBytes, StageRecord.ORDER);
        header.putInt(LiveTraceFile.RANK_OFFSET, rank, StageRecord.ORDER);
        header.putInt(LiveTraceFile.RECORD_LENGTH_OFFSET, StageRecord.LENGTH, StageRecord.ORDER);
        header.putLong(LiveTraceFile.EPOCH_OFFSET_OFFSET, StageTraceFile.epochOffsetNs(), StageRecord.ORDER);
        header.putLong(LiveTraceFile.PID_OFFSET, ProcessHandle.current().pid(), StageRecord.ORDER);
        header.putLongVolatile(LiveTraceFile.MAGIC_OFFSET, LiveTraceFile.MAGIC);
    }
}
