package io.stagecoach.pipeline.trace;

import java.nio.ByteOrder;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * Flyweight over one stage record, the same 48 bytes in the ring and in the trace file, little endian:
 * <pre>
 *   0  transfer id   long
 *   8  start ns      long  (System.nanoTime)
 *  16  end ns        long
 *  24  bytes         long
 *  32  rank          int
 *  36  stage         int   (Stage ordinal)
 *  40  chunk         int
 *  44  device        int
 * </pre>
 * A handler that keeps a record past its call copies the fields it needs: the flyweight is re-wrapped for the next.
 */
public final class StageRecord
{
    /** Bytes of one record. */
    public static final int LENGTH = 48;

    static final int TRANSFER_ID_OFFSET = 0;
    static final int START_NS_OFFSET = 8;
    static final int END_NS_OFFSET = 16;
    static final int BYTES_OFFSET = 24;
    static final int RANK_OFFSET = 32;
    static final int STAGE_OFFSET = 36;
    static final int CHUNK_OFFSET = 40;
    static final int DEVICE_OFFSET = 44;
    static final ByteOrder ORDER = ByteOrder.LITTLE_ENDIAN;

    private DirectBuffer buffer;
    private int offset;

    /**
     * @param buffer holding a record.
     * @param offset of the record in it.
     * @return this.
     */
    public StageRecord wrap(final DirectBuffer buffer, final int offset)
    {
        this.buffer = buffer;
        this.offset = offset;
        return this;
    }

    /**
     * @return the rank that recorded it.
     */
    public int rank()
    {
        return buffer.getInt(offset + RANK_OFFSET, ORDER);
    }

    /**
     * @return the transfer, as its rank numbers them.
     */
    public long transferId()
    {
        return buffer.getLong(offset + TRANSFER_ID_OFFSET, ORDER);
    }

    /**
     * @return the chunk within the transfer.
     */
    public int chunk()
    {
        return buffer.getInt(offset + CHUNK_OFFSET, ORDER);
    }

    /**
     * @return the stage's ordinal, as stored; {@link #stage()} checks it.
     */
    public int stageOrdinal()
    {
        return buffer.getInt(offset + STAGE_OFFSET, ORDER);
    }

    /**
     * @return the stage.
     * @throws IllegalArgumentException when the stored ordinal names no stage.
     */
    public Stage stage()
    {
        return Stage.of(stageOrdinal());
    }

    /**
     * @return {@link System#nanoTime()} when the stage's work was issued.
     */
    public long startNs()
    {
        return buffer.getLong(offset + START_NS_OFFSET, ORDER);
    }

    /**
     * @return {@link System#nanoTime()} when its completion was seen.
     */
    public long endNs()
    {
        return buffer.getLong(offset + END_NS_OFFSET, ORDER);
    }

    /**
     * @return bytes the stage moved.
     */
    public long bytes()
    {
        return buffer.getLong(offset + BYTES_OFFSET, ORDER);
    }

    /**
     * @return the device it ran on or for.
     */
    public int device()
    {
        return buffer.getInt(offset + DEVICE_OFFSET, ORDER);
    }

    /**
     * Copies the record's 48 bytes, for a handler that keeps it past its call.
     *
     * @param to     where the copy goes.
     * @param offset of the copy in it.
     */
    public void copyTo(final MutableDirectBuffer to, final int offset)
    {
        to.putBytes(offset, buffer, this.offset, LENGTH);
    }

    /**
     * Moves a record's times to another clock: adds {@code deltaNs} to its start and to its end where it has one (a
     * transfer record in flight has none). Stage and transfer records keep their times at the same places, so it
     * serves both; for records of another node, whose {@link System#nanoTime()} counts from another origin.
     *
     * @param buffer  holding the record.
     * @param offset  of the record in it.
     * @param deltaNs added to its times.
     */
    public static void shiftClock(final MutableDirectBuffer buffer, final int offset, final long deltaNs)
    {
        buffer.putLong(offset + START_NS_OFFSET, buffer.getLong(offset + START_NS_OFFSET, ORDER) + deltaNs, ORDER);
        final long endNs = buffer.getLong(offset + END_NS_OFFSET, ORDER);
        if (0 != endNs)
        {
            buffer.putLong(offset + END_NS_OFFSET, endNs + deltaNs, ORDER);
        }
    }

    DirectBuffer buffer()
    {
        return buffer;
    }

    int offset()
    {
        return offset;
    }

    public String toString()
    {
        return "StageRecord{rank=" + rank() + ", transfer=" + transferId() + ", chunk=" + chunk() + ", stage=" +
            stageOrdinal() + ", startNs=" + startNs() + ", endNs=" + endNs() + ", bytes=" + bytes() + ", device=" +
            device() + "}";
    }

    static void encode(
        final MutableDirectBuffer buffer,
        final int offset,
        final int rank,
        final long transferId,
        final int chunk,
        final Stage stage,
        final long startNs,
        final long endNs,
        final long bytes,
        final int device)
    {
        buffer.putLong(offset + TRANSFER_ID_OFFSET, transferId, ORDER);
        buffer.putLong(offset + START_NS_OFFSET, startNs, ORDER);
        buffer.putLong(offset + END_NS_OFFSET, endNs, ORDER);
        buffer.putLong(offset + BYTES_OFFSET, bytes, ORDER);
        buffer.putInt(offset + RANK_OFFSET, rank, ORDER);
        buffer.putInt(offset + STAGE_OFFSET, stage.ordinal(), ORDER);
        buffer.putInt(offset + CHUNK_OFFSET, chunk, ORDER);
        buffer.putInt(offset + DEVICE_OFFSET, device, ORDER);
    }
}
