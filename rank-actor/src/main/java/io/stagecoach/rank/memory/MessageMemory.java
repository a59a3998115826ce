package io.stagecoach.rank.memory;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.HashSet;

import io.stagecoach.protocol.ErrorClass;
import io.stagecoach.rank.InvalidArgumentException;
import org.agrona.BufferUtil;

/**
 * Memory the application allocates for messages (MPI_Alloc_mem / MPI_Free_mem): buffers of the rank's shared arena
 * where it has one and there is room, so that a same-node receiver copies a scattered message straight out of the
 * buffer (one copy, where packing takes two); ordinary direct buffers otherwise. Thread-safe.
 */
public final class MessageMemory
{
    private final SharedArena arena;
    private final HashSet<Long> ordinary = new HashSet<>();

    /**
     * @param arena the rank's shared arena, or null.
     */
    public MessageMemory(final SharedArena arena)
    {
        this.arena = arena;
    }

    /**
     * @param bytes in [1, {@link Integer#MAX_VALUE}].
     * @return a direct buffer of that capacity, native order.
     * @throws IllegalArgumentException naming the size and the limits.
     */
    public ByteBuffer allocate(final long bytes)
    {
        if (bytes < 1 || bytes > Integer.MAX_VALUE)
        {
            throw new InvalidArgumentException(ErrorClass.SIZE,
                "allocate: " + bytes + " bytes is outside [1, " + Integer.MAX_VALUE + "]");
        }
        final ByteBuffer shared = arena != null ? arena.allocateForApplication((int)bytes) : null;
        if (shared != null)
        {
            return shared;
        }
        final ByteBuffer buffer = ByteBuffer.allocateDirect((int)bytes).order(ByteOrder.nativeOrder());
        synchronized (ordinary)
        {
            ordinary.add(BufferUtil.address(buffer));
        }
        return buffer;
    }

    /**
     * @param buffer one that {@link #allocate} returned and that no request uses any more.
     * @throws IllegalArgumentException when it is not such a buffer, or was freed already.
     */
    public void free(final ByteBuffer buffer)
    {
        final long address = buffer.isDirect() ? BufferUtil.address(buffer) : 0;
        final boolean freed;
        if (arena != null && arena.freeForApplication(address))
        {
            freed = true;
        }
        else
        {
            synchronized (ordinary)
            {
                freed = ordinary.remove(address);
            }
        }
        if (!freed)
        {
            throw new InvalidArgumentException(ErrorClass.BUFFER, "free: the buffer at 0x" +
                Long.toHexString(address) + " (" + buffer.capacity() + " bytes) was not allocated by this communicator, " +
                "or was freed already");
        }
    }
}
