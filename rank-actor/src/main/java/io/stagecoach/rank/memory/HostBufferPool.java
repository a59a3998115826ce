package io.stagecoach.rank.memory;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;

import io.stagecoach.pipeline.PackedHostBuffer;
import org.agrona.BufferUtil;

/**
 * Off-heap buffers for packing a scattered message whole: the send side of a same-node read, whose receiver reads
 * one contiguous range, and the receive side when the receive type scatters what it read. Power-of-two size classes
 * from {@link #MIN_CLASS_BYTES}; released buffers are kept for reuse up to {@link #MAX_RETAINED_BYTES} in all, so
 * that a steady exchange (halo faces) allocates nothing after its first round.
 */
public final class HostBufferPool
{
    static final int MIN_CLASS_BYTES = 64 * 1024;
    static final long MAX_RETAINED_BYTES = 64L * 1024 * 1024;
    /** Largest buffer handed out: larger scattered messages stream through the log buffer instead. */
    public static final long MAX_BUFFER_BYTES = 256L * 1024 * 1024;

    private final ArrayList<ArrayDeque<ByteBuffer>> free = new ArrayList<>(Integer.SIZE);
    private long retainedBytes;
    private volatile SharedArena arena;

    public HostBufferPool()
    {
        for (int i = 0; i < Integer.SIZE; i++)
        {
            free.add(new ArrayDeque<>());
        }
    }

    /**
     * @param lengthBytes at least 0, at most {@link #MAX_BUFFER_BYTES}.
     * @return a buffer of at least that capacity; released to this pool.
     */
    public synchronized PackedHostBuffer acquire(final long lengthBytes)
    {
        if (lengthBytes < 0 || lengthBytes > MAX_BUFFER_BYTES)
        {
            throw new IllegalArgumentException("host packing buffer of " + lengthBytes + " bytes is outside [0, " +
                MAX_BUFFER_BYTES + "]");
        }
        final int sizeClass = sizeClass(lengthBytes);
        ByteBuffer buffer = free.get(sizeClass).pollFirst();
        if (buffer != null)
        {
            retainedBytes -= buffer.capacity();
        }
        else
        {
            buffer = ByteBuffer.allocateDirect(1 << sizeClass);
        }
        final ByteBuffer taken = buffer;
        return new PackedHostBuffer(BufferUtil.address(taken), lengthBytes, () -> release(sizeClass, taken));
    }

    /**
     * @param arena this rank's shared arena, from now on; null for none.
     */
    public void arena(final SharedArena arena)
    {
        this.arena = arena;
    }

    /**
     * @param lengthBytes at least 0.
     * @return a buffer of at least that capacity in the shared arena; null where there is no arena or no room in it.
     */
    public PackedHostBuffer acquireShared(final long lengthBytes)
    {
        final SharedArena shared = arena;
        return shared != null ? shared.acquire(lengthBytes) : null;
    }

    /**
     * @return the offset in the shared arena of an address of {@link #acquireShared}'s buffers.
     */
    public long sharedOffset(final long address)
    {
        final SharedArena shared = arena;
        return shared != null ? shared.offsetOf(address) : -1;
    }

    synchronized long retainedBytes()
    {
        return retainedBytes;
    }

    private synchronized void release(final int sizeClass, final ByteBuffer buffer)
    {
        if (retainedBytes + buffer.capacity() > MAX_RETAINED_BYTES)
        {
            return;
        }
        free.get(sizeClass).addFirst(buffer);
        retainedBytes += buffer.capacity();
    }

    /**
     * @return log2 of the power-of-two size class of a buffer of at least {@code lengthBytes}, from
     * {@link #MIN_CLASS_BYTES}; the shared arena uses the same classes.
     */
    static int sizeClass(final long lengthBytes)
    {
        final long bytes = Math.max(MIN_CLASS_BYTES, lengthBytes);
        return 64 - Long.numberOfLeadingZeros(bytes - 1);
    }
}
