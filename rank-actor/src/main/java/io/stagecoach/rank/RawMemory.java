package io.stagecoach.rank;

import io.stagecoach.protocol.datatype.CompiledType;
import org.agrona.UnsafeApi;

/**
 * Copies between raw off-heap addresses: the payload path for contiguous data and for staged device messages.
 */
final class RawMemory
{
    private RawMemory()
    {
    }

    static void copy(final long srcAddress, final long dstAddress, final long lengthBytes)
    {
        if (lengthBytes > 0)
        {
            UnsafeApi.copyMemory(srcAddress, dstAddress, lengthBytes);
        }
    }

    /**
     * @return the address of packed byte 0 when the data of {@code count} instances is one contiguous block in
     * memory, so that packing is a plain copy; otherwise 0.
     */
    static long contiguousStart(final CompiledType compiled, final long base, final long count)
    {
        return compiled.isContiguous() ? base + compiled.dataLowBytes(count) : 0;
    }
}
