package io.stagecoach.pipeline.trace;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * Flyweight over one transfer record: a message that began its way to or from a peer (end ns 0), or ended it. It has
 * the length of a {@link StageRecord} and shares the ring with them under another message type; it goes to a live
 * view only, never into a rank's trace file. Little endian:
 * <pre>
 *   0  transfer id   long
 *   8  start ns      long  (System.nanoTime)
 *  16  end ns        long  (0 while the transfer is in flight)
 *  24  bytes         long  (packed bytes of the message)
 *  32  rank          int
 *  36  peer          int   (the other rank)
 *  40  chunks        int   (chunks of a staged transfer, 1 otherwise)
 *  44  flags         int   (path ordinal in bits 0-7, RECEIVING, FAILED)
 * </pre>
 */
public final class TransferRecord
{
    /** Bytes of one record. */
    public static final int LENGTH = StageRecord.LENGTH;

    static final int RECEIVING = 1 << 8;
    static final int FAILED = 1 << 9;

    private static final int TRANSFER_ID_OFFSET = 0;
    private static final int START_NS_OFFSET = 8;
    private static final int END_NS_OFFSET = 16;
    private static final int BYTES_OFFSET = 24;
    private static final int RANK_OFFSET = 32;
    private static final int PEER_OFFSET = 36;
    private static final int CHUNKS_OFFSET = 40;
    private static final int FLAGS_OFFSET = 44;
    private static final int PATH_MASK = 0xff;

    private DirectBuffer buffer;
    private int offset;

    /**
     * @param buffer holding a record.
     * @param offset of the record in it.
     * @return this.
     */
    public TransferRecord wrap(final DirectBuffer buffer, final int offset)
    {
        this.buffer = buffer;
        this.offset = offset;
        return this;
    }

    /**
     * @return the transfer, as its rank numbers them.
     */
    public long transferId()
    {
        return buffer.getLong(offset + TRANSFER_ID_OFFSET, StageRecord.ORDER);
    }

    /**
     * @return {@link System#nanoTime()} when the transfer took its path.
     */
    public long startNs()
    {
        return buffer.getLong(offset + START_NS_OFFSET, StageRecord.ORDER);
    }

    /**
     * @return {@link System#nanoTime()} when it completed or failed; 0 while it is in flight.
     */
    public long endNs()
    {
        return buffer.getLong(offset + END_NS_OFFSET, StageRecord.ORDER);
    }

    /**
     * @return whether this record says that the transfer ended.
     */
    public boolean hasEnded()
    {
        return 0 != endNs();
    }

    /**
     * @return packed bytes of the message.
     */
    public long bytes()
    {
        return buffer.getLong(offset + BYTES_OFFSET, StageRecord.ORDER);
    }

    /**
     * @return the rank that recorded it.
     */
    public int rank()
    {
        return buffer.getInt(offset + RANK_OFFSET, StageRecord.ORDER);
    }

    /**
     * @return the other rank: the receiver of a send, the sender of a receive.
     */
    public int peer()
    {
        return buffer.getInt(offset + PEER_OFFSET, StageRecord.ORDER);
    }

    /**
     * @return chunks of a staged transfer, 1 otherwise.
     */
    public int chunks()
    {
        return buffer.getInt(offset + CHUNKS_OFFSET, StageRecord.ORDER);
    }

    /**
     * @return the path's ordinal, as stored; {@link TracedPath#of(int)} checks it.
     */
    public int pathOrdinal()
    {
        return flags() & PATH_MASK;
    }

    /**
     * @return whether the recording rank receives the message.
     */
    public boolean isReceiving()
    {
        return (flags() & RECEIVING) != 0;
    }

    /**
     * @return whether the transfer ended in a failure.
     */
    public boolean hasFailed()
    {
        return (flags() & FAILED) != 0;
    }

    /**
     * Copies the record's 48 bytes, for a handler that keeps it past its call or sends it on.
     *
     * @param to     where the copy goes.
     * @param offset of the copy in it.
     */
    public void copyTo(final MutableDirectBuffer to, final int offset)
    {
        to.putBytes(offset, buffer, this.offset, LENGTH);
    }

    public String toString()
    {
        return "TransferRecord{rank=" + rank() + ", transfer=" + transferId() + ", peer=" + peer() + ", path=" +
            pathOrdinal() + ", receiving=" + isReceiving() + ", bytes=" + bytes() + ", chunks=" + chunks() +
            ", startNs=" + startNs() + ", endNs=" + endNs() + ", failed=" + hasFailed() + "}";
    }

    DirectBuffer buffer()
    {
        return buffer;
    }

    int offset()
    {
        return offset;
    }

    private int flags()
    {
        return buffer.getInt(offset + FLAGS_OFFSET, StageRecord.ORDER);
    }

    static void encode(
        final MutableDirectBuffer buffer,
        final int offset,
        final int rank,
        final long transferId,
        final int peer,
        final int flags,
        final long bytes,
        final int chunks,
        final long startNs,
        final long endNs)
    {
        buffer.putLong(offset + TRANSFER_ID_OFFSET, transferId, StageRecord.ORDER);
        buffer.putLong(offset + START_NS_OFFSET, startNs, StageRecord.ORDER);
        buffer.putLong(offset + END_NS_OFFSET, endNs, StageRecord.ORDER);
        buffer.putLong(offset + BYTES_OFFSET, bytes, StageRecord.ORDER);
        buffer.putInt(offset + RANK_OFFSET, rank, StageRecord.ORDER);
        buffer.putInt(offset + PEER_OFFSET, peer, StageRecord.ORDER);
        buffer.putInt(offset + CHUNKS_OFFSET, chunks, StageRecord.ORDER);
        buffer.putInt(offset + FLAGS_OFFSET, flags, StageRecord.ORDER);
    }

    static int flags(final TracedPath path, final boolean receiving, final boolean failed)
    {
        return path.ordinal() | (receiving ? RECEIVING : 0) | (failed ? FAILED : 0);
    }
}
