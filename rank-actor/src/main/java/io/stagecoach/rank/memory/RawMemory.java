package io.stagecoach.rank.memory;

import io.stagecoach.protocol.datatype.CompiledType;
import org.agrona.UnsafeApi;

/**
 * Copies between raw off-heap addresses: the payload path for contiguous data and for staged device messages.
 */
public final class RawMemory
{
    /**
     * Longest copy done with plain 8-byte loads and stores: for the payload of a small eager message, the checks and
     * the stub call of {@code Unsafe.copyMemory} cost more than the copy (6.8% of a spinning rank's samples at 8 B).
     */
    static final long SMALL_COPY_BYTES = 64;

    private RawMemory()
    {
    }

    /**
     * Copies between two ranges that do not overlap.
     */
    public static void copy(final long srcAddress, final long dstAddress, final long lengthBytes)
    {
        if (lengthBytes > SMALL_COPY_BYTES)
        {
            UnsafeApi.copyMemory(srcAddress, dstAddress, lengthBytes);
            return;
        }
        long i = 0;
        for (; i + Long.BYTES <= lengthBytes; i += Long.BYTES)
        {
            UnsafeApi.putLong(dstAddress + i, UnsafeApi.getLong(srcAddress + i));
        }
        for (; i < lengthBytes; i++)
        {
            UnsafeApi.putByte(dstAddress + i, UnsafeApi.getByte(srcAddress + i));
        }
    }

    /**
     * @return the address of packed byte 0 when the data of {@code count} instances is one contiguous block in
     * memory, so that packing is a plain copy; otherwise 0.
     */
    public static long contiguousStart(final CompiledType compiled, final long base, final long count)
    {
        return compiled.isContiguous() ? base + compiled.dataLowBytes(count) : 0;
    }
}
