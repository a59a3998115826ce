package io.stagecoach.pipeline.trace;

import java.io.IOException;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

import org.agrona.IoUtil;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.MessageHandler;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.OneToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;

/**
 * The reading end of a rank's {@linkplain LiveTraceFile live trace file}, in another process of the node: takes the
 * records the rank's drain thread copied into the shared ring, while the rank runs. One thread reads; nothing is
 * allocated per record.
 */
public final class LiveTraceReader implements AutoCloseable
{
    private static final int TRANSFER_TYPE = 2;

    private final Path file;
    private final MappedByteBuffer mapping;
    private final UnsafeBuffer header;
    private final OneToOneRingBuffer ring;
    private final StageRecord record = new StageRecord();
    private final TransferRecord transfer = new TransferRecord();
    private final MessageHandler messageHandler = this::onMessage;
    private StageRecordHandler handler;

    private LiveTraceReader(final Path file, final MappedByteBuffer mapping, final int capacityBytes)
    {
        this.file = file;
        this.mapping = mapping;
        this.header = new UnsafeBuffer(mapping, 0, LiveTraceFile.HEADER_LENGTH);
        this.ring = new OneToOneRingBuffer(new UnsafeBuffer(mapping, LiveTraceFile.HEADER_LENGTH,
            capacityBytes + RingBufferDescriptor.TRAILER_LENGTH));
    }

    /**
     * Maps a rank's live file, never through a symbolic link, once the rank has written its header.
     *
     * @param file a rank's live file.
     * @return its reader, or null when the rank has not finished its header yet (try again later).
     * @throws IOException naming the file when it cannot be mapped or is not a live trace file of this version.
     */
    public static LiveTraceReader open(final Path file) throws IOException
    {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE,
            LinkOption.NOFOLLOW_LINKS))
        {
            final long size = channel.size();
            if (size < LiveTraceFile.HEADER_LENGTH)
            {
                return null;
            }
            final MappedByteBuffer headerMapping = LiveTraceFile.map(channel, LiveTraceFile.HEADER_LENGTH);
            final UnsafeBuffer header = new UnsafeBuffer(headerMapping);
            final boolean ready = header.getLongVolatile(LiveTraceFile.MAGIC_OFFSET) == LiveTraceFile.MAGIC;
            final int version = header.getInt(LiveTraceFile.VERSION_OFFSET, StageRecord.ORDER);
            final int capacityBytes = header.getInt(LiveTraceFile.CAPACITY_OFFSET, StageRecord.ORDER);
            IoUtil.unmap(headerMapping);
            if (!ready)
            {
                return null;
            }
            if (version != LiveTraceFile.VERSION || capacityBytes <= 0 ||
                LiveTraceFile.fileLength(capacityBytes) != size)
            {
                throw new IOException(file + " is not a live trace file of version " + LiveTraceFile.VERSION +
                    " (version " + version + ", ring " + capacityBytes + " bytes, file " + size + " bytes)");
            }
            return new LiveTraceReader(file, LiveTraceFile.map(channel, (int)size), capacityBytes);
        }
    }

    /**
     * Hands the records waiting in the ring to a handler, stage records to {@link StageRecordHandler#onRecord} and
     * transfer records to {@link StageRecordHandler#onTransfer}, on the calling thread.
     *
     * @param handler told of each record.
     * @param limit   most records to take.
     * @return records taken.
     */
    public int read(final StageRecordHandler handler, final int limit)
    {
        this.handler = handler;
        try
        {
            return ring.read(messageHandler, limit);
        }
        finally
        {
            this.handler = null;
        }
    }

    /**
     * @return the rank that writes it.
     */
    public int rank()
    {
        return header.getInt(LiveTraceFile.RANK_OFFSET, StageRecord.ORDER);
    }

    /**
     * @return records the rank dropped because this reader had left the ring full.
     */
    public long droppedRecords()
    {
        return header.getLongVolatile(LiveTraceFile.DROPPED_OFFSET);
    }

    /**
     * @return the rank's wall clock minus its {@link System#nanoTime()}, in nanoseconds.
     */
    public long epochOffsetNs()
    {
        return header.getLong(LiveTraceFile.EPOCH_OFFSET_OFFSET, StageRecord.ORDER);
    }

    /**
     * @return the file it reads.
     */
    public Path file()
    {
        return file;
    }

    public void close()
    {
        IoUtil.unmap(mapping);
    }

    public String toString()
    {
        return "LiveTraceReader{file=" + file + "}";
    }

    private void onMessage(final int type, final MutableDirectBuffer buffer, final int index, final int length)
    {
        if (TRANSFER_TYPE == type)
        {
            handler.onTransfer(transfer.wrap(buffer, index));
        }
        else
        {
            handler.onRecord(record.wrap(buffer, index));
        }
    }
}
