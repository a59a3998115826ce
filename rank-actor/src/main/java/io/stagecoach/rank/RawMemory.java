package io.stagecoach.rank;

import io.stagecoach.protocol.datatype.CompiledType;
import io.stagecoach.protocol.datatype.Datatype;

/**
 * Copies between raw off-heap addresses, through the datatype engine's contiguous pack (a plain memory copy).
 */
final class RawMemory
{
    private static final CompiledType BYTES = Datatype.BYTE.commit().compiled();

    private RawMemory()
    {
    }

    static void copy(final long srcAddress, final long dstAddress, final long lengthBytes)
    {
        if (lengthBytes > 0)
        {
            BYTES.pack(srcAddress, lengthBytes, 0, lengthBytes, dstAddress);
        }
    }
}
