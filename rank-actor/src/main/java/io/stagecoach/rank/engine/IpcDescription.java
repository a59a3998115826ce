package io.stagecoach.rank.engine;

import java.nio.ByteBuffer;

import io.stagecoach.device.IpcHandle;
import io.stagecoach.pipeline.PackedHostBuffer;
import io.stagecoach.protocol.datatype.CompiledType;
import io.stagecoach.protocol.datatype.LayoutCodec;
import io.stagecoach.rank.memory.HostBufferPool;
import io.stagecoach.rank.memory.PeerArenas;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * What a same-node receiver needs to get a device message straight out of the sender's device buffer (an RTS with
 * flag DEVICE_IPC): the IPC handle of the buffer's range, where displacement 0 lies in it, the count, and the layout
 * of the send type. The sender writes it into its shared arena; the receiver reads it from its mapping of the arena,
 * opens the handle and moves the bytes on its device, then answers ACK.
 * <pre>
 *    0 displacement 0 from the range's first byte (long)   8 count (long)   16 IPC handle (128 bytes)
 *  144 layout of the send type ({@link LayoutCodec})
 * </pre>
 */
final class IpcDescription
{
    static final int HEADER_BYTES = 16 + IpcHandle.ENCODED_LENGTH;
    private static final long MAX_CODE_LONGS = 1 << 24;

    /** The send buffer of a description, as the receiver opens it. */
    record Source(IpcHandle handle, long displacement, long count, ByteBuffer layout)
    {
    }

    private IpcDescription()
    {
    }

    /**
     * Describes a device send in this rank's shared arena.
     *
     * @param handle of the send buffer's range, from the device layer.
     * @return the description; null when the arena has no room.
     */
    static PackedHostBuffer write(final SendOperation send, final IpcHandle handle, final HostBufferPool pool)
    {
        final int lengthBytes = HEADER_BYTES + LayoutCodec.lengthOf(send.compiled);
        final PackedHostBuffer description = pool.acquireShared(lengthBytes);
        if (description == null)
        {
            return null;
        }
        final UnsafeBuffer view = new UnsafeBuffer(description.address(), lengthBytes);
        view.putLong(0, send.buffer.baseAddress() - send.buffer.lowAddress());
        view.putLong(8, send.count);
        handle.encode(view, 16);
        LayoutCodec.write(send.compiled, view, HEADER_BYTES);
        return description;
    }

    /**
     * @param arenas      this rank's mappings of its peers' arenas.
     * @param rank        the sender.
     * @param pid         its process.
     * @param offset      of the description in its arena.
     * @return the handle, displacement and count, and the layout's bytes (copied out of the arena), to be decoded
     * with {@link #layout} where not known already.
     * @throws IllegalStateException where the arena cannot be mapped, the handle is not well formed or the layout's
     *                               length is out of bounds.
     */
    static Source read(final PeerArenas arenas, final int rank, final long pid, final long offset)
    {
        final int fixedBytes = HEADER_BYTES + LayoutCodec.HEADER_BYTES;
        final UnsafeBuffer header = new UnsafeBuffer(arenas.address(rank, pid, offset, fixedBytes), fixedBytes);
        final long codeLongs = header.getLong(HEADER_BYTES + LayoutCodec.HEADER_BYTES - Long.BYTES);
        if (codeLongs < 0 || codeLongs > MAX_CODE_LONGS)
        {
            throw new IllegalStateException("rank " + rank + " described a send type of " + codeLongs +
                " code longs, outside [0, " + MAX_CODE_LONGS + "]");
        }
        final int layoutBytes = LayoutCodec.HEADER_BYTES + (int)codeLongs * Long.BYTES;
        final UnsafeBuffer layout = new UnsafeBuffer(
            arenas.address(rank, pid, offset + HEADER_BYTES, layoutBytes), layoutBytes);
        final ByteBuffer copy = ByteBuffer.allocate(layoutBytes);
        layout.getBytes(0, copy, layoutBytes);
        copy.flip();
        final IpcHandle handle;
        try
        {
            handle = IpcHandle.decode(header, 16);
        }
        catch (final IllegalArgumentException ex)
        {
            throw new IllegalStateException("rank " + rank + " described its send buffer with " + ex.getMessage());
        }
        return new Source(handle, header.getLong(0), header.getLong(8), copy);
    }

    /**
     * Decodes a layout read by {@link #read} and checks it against the message and the exported range.
     *
     * @throws io.stagecoach.protocol.datatype.DatatypeException where the layout is not well formed.
     * @throws IllegalStateException where its data leaves the exported range or its size disagrees with the RTS.
     */
    static CompiledType layout(final int rank, final ByteBuffer layout)
    {
        return LayoutCodec.read(new UnsafeBuffer(layout), 0, layout.remaining(), "rank " + rank + "'s send type");
    }

    /**
     * @throws IllegalStateException where the instances leave the exported range or their size is not the message's.
     */
    static void check(final int rank, final Source source, final CompiledType layout, final long packedBytes)
    {
        final long base = source.displacement();
        final long count = source.count();
        if (count < 0 || layout.size() * count != packedBytes || base + layout.dataLowBytes(count) < 0 ||
            base + layout.dataHighBytes(count) > source.handle().lengthBytes())
        {
            throw new IllegalStateException("rank " + rank + " described " + count + " x " + layout.size() +
                " bytes at displacement " + base + " of a " + source.handle().lengthBytes() + "-byte device range " +
                "for a message of " + packedBytes + " bytes");
        }
    }
}
