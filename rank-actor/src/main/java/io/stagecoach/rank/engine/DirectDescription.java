package io.stagecoach.rank.engine;

import io.stagecoach.pipeline.PackedHostBuffer;
import io.stagecoach.protocol.datatype.CompiledType;
import io.stagecoach.protocol.datatype.LayoutCodec;
import io.stagecoach.rank.memory.HostBufferPool;
import io.stagecoach.rank.memory.MessageBuffer;
import io.stagecoach.rank.memory.PeerArenas;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * What a same-node receiver needs to copy a scattered message straight out of a send buffer that lies in the
 * sender's shared arena (an RTS with flag DIRECT): where the buffer lies there, the count, and the layout of the send
 * type. The sender writes it into its arena; the receiver maps it, walks the layout over its mapping of the buffer and
 * unpacks, one copy where packing into the arena and unpacking out of it take two.
 * <pre>
 *    0 offset of displacement 0 (long)   8 offset of the buffer's first byte   16 the buffer's length   24 count
 *   32 layout of the send type ({@link LayoutCodec})
 * </pre>
 */
final class DirectDescription
{
    static final int HEADER_BYTES = 32;
    /**
     * Shortest contiguous block of a send type that is copied straight out of the sender's buffer. Below it, each
     * line the receiver fetches from the sender's memory brings few bytes (a column of floats: 4 of 64), and packing
     * on the sender's side, which moves only whole lines of packed bytes between the cores, costs less.
     */
    static final long MIN_BLOCK_BYTES = 64;
    private static final long MAX_CODE_LONGS = 1 << 24;

    /**
     * The send buffer of a description, as the receiver maps it: displacement 0, the count, the layout, and the
     * buffer's first byte and length.
     */
    record Source(long baseAddress, long count, CompiledType layout, long lowAddress, long lengthBytes)
    {
    }

    private DirectDescription()
    {
    }

    /**
     * Describes a host send whose whole buffer lies in this rank's shared arena and whose type's blocks are
     * {@link #MIN_BLOCK_BYTES} or longer (a contiguous one too: a same-node receiver of device memory then copies it
     * to the device straight out of the arena).
     *
     * @return the description, in the arena; null when the send does not qualify or the arena has no room.
     */
    static PackedHostBuffer write(final SendOperation send, final HostBufferPool pool)
    {
        final MessageBuffer buffer = send.buffer;
        if (buffer.isDevice() || !send.compiled.isContiguous() && send.compiled.minBlockBytes() < MIN_BLOCK_BYTES ||
            buffer.lengthBytes() <= 0)
        {
            return null;
        }
        final long lowOffset = pool.sharedOffset(buffer.lowAddress());
        final long lastOffset = pool.sharedOffset(buffer.lowAddress() + buffer.lengthBytes() - 1);
        if (lowOffset < 0 || lastOffset != lowOffset + buffer.lengthBytes() - 1)
        {
            return null;
        }
        final int lengthBytes = HEADER_BYTES + LayoutCodec.lengthOf(send.compiled);
        final PackedHostBuffer description = pool.acquireShared(lengthBytes);
        if (description == null)
        {
            return null;
        }
        final UnsafeBuffer view = new UnsafeBuffer(description.address(), lengthBytes);
        view.putLong(0, lowOffset + (buffer.baseAddress() - buffer.lowAddress()));
        view.putLong(8, lowOffset);
        view.putLong(16, buffer.lengthBytes());
        view.putLong(24, send.count);
        LayoutCodec.write(send.compiled, view, HEADER_BYTES);
        return description;
    }

    /**
     * @param arenas      this rank's mappings of its peers' arenas.
     * @param rank        the sender.
     * @param pid         its process.
     * @param offset      of the description in its arena.
     * @param packedBytes the message's length, as its RTS gives it.
     * @return where the buffer lies in this process, the count and the layout.
     * @throws IllegalStateException where the arena cannot be mapped or a range lies outside it.
     * @throws io.stagecoach.protocol.datatype.DatatypeException where the layout is not well formed, its data leaves
     *                                                           the buffer, or its size disagrees with the RTS.
     */
    static Source read(final PeerArenas arenas, final int rank, final long pid, final long offset,
        final long packedBytes)
    {
        final int fixedBytes = HEADER_BYTES + LayoutCodec.HEADER_BYTES;
        final UnsafeBuffer header = new UnsafeBuffer(arenas.address(rank, pid, offset, fixedBytes), fixedBytes);
        final long codeLongs = header.getLong(HEADER_BYTES + LayoutCodec.HEADER_BYTES - Long.BYTES);
        if (codeLongs < 0 || codeLongs > MAX_CODE_LONGS)
        {
            throw new IllegalStateException("rank " + rank + " described a send type of " + codeLongs +
                " code longs, outside [0, " + MAX_CODE_LONGS + "]");
        }
        final int lengthBytes = fixedBytes + (int)codeLongs * Long.BYTES;
        final UnsafeBuffer whole = new UnsafeBuffer(arenas.address(rank, pid, offset, lengthBytes), lengthBytes);
        final CompiledType layout = LayoutCodec.read(whole, HEADER_BYTES, lengthBytes - HEADER_BYTES,
            "rank " + rank + "'s send type");
        final long baseOffset = whole.getLong(0);
        final long lowOffset = whole.getLong(8);
        final long bufferBytes = whole.getLong(16);
        final long count = whole.getLong(24);
        final long lowAddress = arenas.address(rank, pid, lowOffset, bufferBytes);
        final long base = baseOffset - lowOffset;
        if (count < 0 || layout.size() * count != packedBytes || base + layout.dataLowBytes(count) < 0 ||
            base + layout.dataHighBytes(count) > bufferBytes)
        {
            throw new IllegalStateException("rank " + rank + " described " + count + " x " + layout.size() +
                " bytes at displacement " + base + " of a " + bufferBytes + "-byte buffer for a message of " +
                packedBytes + " bytes");
        }
        return new Source(lowAddress + base, count, layout, lowAddress, bufferBytes);
    }
}
