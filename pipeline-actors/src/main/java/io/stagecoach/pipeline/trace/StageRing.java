package io.stagecoach.pipeline.trace;

import java.util.concurrent.atomic.AtomicLong;

import org.agrona.BitUtil;
import org.agrona.BufferUtil;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.MessageHandler;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.ManyToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.RecordDescriptor;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;

/**
 * A rank's stage records, and its {@linkplain TransferRecord transfer records}, in an Agrona
 * {@link ManyToOneRingBuffer}: any thread records (a claim, eight stores and a commit, no allocation), one thread
 * drains. A record that finds the ring full is dropped and counted, never waited
 * for. Each record takes {@link #RECORD_SLOT_BYTES} of the ring.
 */
public final class StageRing implements StageTracer
{
    /** Smallest capacity of the ring. */
    public static final int MIN_CAPACITY_BYTES = 64 * 1024;
    /** Largest capacity of the ring. */
    public static final int MAX_CAPACITY_BYTES = 1 << 30;
    /** Bytes of the ring one record takes: Agrona's record header and the record, aligned. */
    public static final int RECORD_SLOT_BYTES =
        BitUtil.align(RecordDescriptor.HEADER_LENGTH + StageRecord.LENGTH, RecordDescriptor.ALIGNMENT);

    private static final int RECORD_TYPE = 1;
    private static final int TRANSFER_TYPE = 2;

    private final int rank;
    private final ManyToOneRingBuffer ring;
    private final AtomicBuffer buffer;
    private final AtomicLong droppedRecords = new AtomicLong();
    private final StageRecord record = new StageRecord();
    private final TransferRecord transfer = new TransferRecord();
    private final MessageHandler drainHandler = this::onMessage;
    private StageRecordHandler handler;

    /**
     * @param rank          the rank whose records it holds, stored in each record.
     * @param capacityBytes a power of two in [{@link #MIN_CAPACITY_BYTES}, {@link #MAX_CAPACITY_BYTES}].
     * @throws IllegalArgumentException naming the capacity when it is not one.
     */
    public StageRing(final int rank, final int capacityBytes)
    {
        checkCapacity(capacityBytes);
        this.rank = rank;
        this.ring = new ManyToOneRingBuffer(new UnsafeBuffer(BufferUtil.allocateDirectAligned(
            capacityBytes + RingBufferDescriptor.TRAILER_LENGTH, BitUtil.CACHE_LINE_LENGTH * 2)));
        this.buffer = ring.buffer();
    }

    /**
     * @return true.
     */
    public boolean isEnabled()
    {
        return true;
    }

    /**
     * {@inheritDoc}
     */
    public void record(
        final long transferId,
        final int chunk,
        final Stage stage,
        final long startNs,
        final long endNs,
        final long bytes,
        final int device)
    {
        final int index = ring.tryClaim(RECORD_TYPE, StageRecord.LENGTH);
        if (index >= 0)
        {
            StageRecord.encode(buffer, index, rank, transferId, chunk, stage, startNs, endNs, bytes, device);
            ring.commit(index);
        }
        else
        {
            droppedRecords.getAndIncrement();
        }
    }

    /**
     * {@inheritDoc}
     */
    public void transferBegun(
        final long transferId,
        final int peer,
        final TracedPath path,
        final boolean receiving,
        final long bytes,
        final int chunks,
        final long startNs)
    {
        recordTransfer(transferId, peer, TransferRecord.flags(path, receiving, false), bytes, chunks, startNs, 0);
    }

    /**
     * {@inheritDoc}
     */
    public void transferEnded(
        final long transferId,
        final int peer,
        final TracedPath path,
        final boolean receiving,
        final long bytes,
        final long startNs,
        final long endNs,
        final boolean failed)
    {
        recordTransfer(transferId, peer, TransferRecord.flags(path, receiving, failed), bytes, 1, startNs,
            Math.max(endNs, 1));
    }

    /**
     * Hands the oldest records to a handler, on the calling thread; only one thread may drain. Takes every record
     * committed before the call, up to the limit: a ring read stops where the ring wraps, so this reads on from its
     * start.
     *
     * @param handler told of each record.
     * @param limit   most records to take.
     * @return records taken.
     */
    public int drain(final StageRecordHandler handler, final int limit)
    {
        this.handler = handler;
        try
        {
            final int read = ring.read(drainHandler, limit);
            return read < limit ? read + ring.read(drainHandler, limit - read) : read;
        }
        finally
        {
            this.handler = null;
        }
    }

    /**
     * @return records dropped so far because the ring was full.
     */
    public long droppedRecords()
    {
        return droppedRecords.get();
    }

    /**
     * @return records waiting to be drained, as last seen.
     */
    public int size()
    {
        return ring.size() / RECORD_SLOT_BYTES;
    }

    /**
     * @return the ring's capacity in bytes.
     */
    public int capacityBytes()
    {
        return ring.capacity();
    }

    /**
     * @return the rank whose records it holds.
     */
    public int rank()
    {
        return rank;
    }

    public String toString()
    {
        return "StageRing{rank=" + rank + ", capacityBytes=" + ring.capacity() + ", dropped=" + droppedRecords() + "}";
    }

    private void recordTransfer(
        final long transferId,
        final int peer,
        final int flags,
        final long bytes,
        final int chunks,
        final long startNs,
        final long endNs)
    {
        final int index = ring.tryClaim(TRANSFER_TYPE, TransferRecord.LENGTH);
        if (index >= 0)
        {
            TransferRecord.encode(buffer, index, rank, transferId, peer, flags, bytes, chunks, startNs, endNs);
            ring.commit(index);
        }
        else
        {
            droppedRecords.getAndIncrement();
        }
    }

    private void onMessage(final int type, final MutableDirectBuffer source, final int index, final int length)
    {
        if (TRANSFER_TYPE == type)
        {
            handler.onTransfer(transfer.wrap(source, index));
        }
        else
        {
            handler.onRecord(record.wrap(source, index));
        }
    }

    static void checkCapacity(final int capacityBytes)
    {
        if (capacityBytes < MIN_CAPACITY_BYTES || capacityBytes > MAX_CAPACITY_BYTES ||
            !BitUtil.isPowerOfTwo(capacityBytes))
        {
            throw new IllegalArgumentException("stage trace ring of " + capacityBytes + " bytes is not a power of " +
                "two in [" + MIN_CAPACITY_BYTES + ", " + MAX_CAPACITY_BYTES + "]");
        }
    }
}
