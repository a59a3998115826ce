package io.stagecoach.protocol.wire;

import org.agrona.DirectBuffer;

/**
 * {@link MessageType#CHUNK} and {@link MessageType#CHUNK_DONE}: a chunk of a large device message that crosses
 * through the sender's shared arena. CHUNK goes from the sender to the receiver once the chunk is packed in a slot;
 * CHUNK_DONE goes back once the receiver has taken it out. After the {@link MessageHeaderFlyweight common header}:
 * <pre>
 *   16 transfer id (long)    CHUNK: the receiver's; CHUNK_DONE: the sender's
 *   24 chunk (int)           its number in the transfer, from 0
 *   28 chunk bytes (int)     CHUNK: the transfer's chunk size (every chunk but the last); CHUNK_DONE: 0
 *   32 arena offset (long)   CHUNK: where the chunk's first packed byte lies in the sender's shared arena;
 *                            CHUNK_DONE: 0
 * </pre>
 */
public final class ChunkFlyweight extends MessageHeaderFlyweight
{
    /** Length of a CHUNK or CHUNK_DONE message. */
    public static final int LENGTH = 40;

    static final int TRANSFER_OFFSET = 16;
    static final int CHUNK_OFFSET = 24;
    static final int CHUNK_BYTES_OFFSET = 28;
    static final int ARENA_OFFSET = 32;

    /**
     * {@inheritDoc}
     */
    public ChunkFlyweight wrap(final DirectBuffer buffer, final int offset, final int length)
    {
        super.wrap(buffer, offset, length);
        return this;
    }

    /**
     * @return the transfer id: the receiver's in a CHUNK, the sender's in a CHUNK_DONE.
     */
    public long transferId()
    {
        return buffer.getLong(TRANSFER_OFFSET, ORDER);
    }

    /**
     * @param transferId the transfer id.
     * @return this.
     */
    public ChunkFlyweight transferId(final long transferId)
    {
        buffer.putLong(TRANSFER_OFFSET, transferId, ORDER);
        return this;
    }

    /**
     * @return the chunk's number in its transfer.
     */
    public int chunk()
    {
        return buffer.getInt(CHUNK_OFFSET, ORDER);
    }

    /**
     * @param chunk the chunk's number in its transfer.
     * @return this.
     */
    public ChunkFlyweight chunk(final int chunk)
    {
        buffer.putInt(CHUNK_OFFSET, chunk, ORDER);
        return this;
    }

    /**
     * @return the transfer's chunk size (CHUNK): every chunk but the last has it, the last the rest.
     */
    public int chunkBytes()
    {
        return buffer.getInt(CHUNK_BYTES_OFFSET, ORDER);
    }

    /**
     * @param bytes the transfer's chunk size; 0 in a CHUNK_DONE.
     * @return this.
     */
    public ChunkFlyweight chunkBytes(final int bytes)
    {
        buffer.putInt(CHUNK_BYTES_OFFSET, bytes, ORDER);
        return this;
    }

    /**
     * @return where the chunk lies in the sender's shared arena (CHUNK).
     */
    public long arenaOffset()
    {
        return buffer.getLong(ARENA_OFFSET, ORDER);
    }

    /**
     * @param offset where the chunk lies in the sender's shared arena; 0 in a CHUNK_DONE.
     * @return this.
     */
    public ChunkFlyweight arenaOffset(final long offset)
    {
        buffer.putLong(ARENA_OFFSET, offset, ORDER);
        return this;
    }
}
