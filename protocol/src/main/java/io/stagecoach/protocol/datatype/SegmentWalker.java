package io.stagecoach.protocol.datatype;

import static io.stagecoach.protocol.datatype.CompiledType.CHILD;
import static io.stagecoach.protocol.datatype.CompiledType.COUNT;
import static io.stagecoach.protocol.datatype.CompiledType.KIND;
import static io.stagecoach.protocol.datatype.CompiledType.KIND_BLOCK;
import static io.stagecoach.protocol.datatype.CompiledType.KIND_VECTOR;
import static io.stagecoach.protocol.datatype.CompiledType.NODE_LONGS;
import static io.stagecoach.protocol.datatype.CompiledType.OFFSET;
import static io.stagecoach.protocol.datatype.CompiledType.PACKED;
import static io.stagecoach.protocol.datatype.CompiledType.STRIDE;

/**
 * Expands a packed byte range into flattened segments, merging a segment into the previous one when it continues
 * it in memory, so the output is the unique maximal segmentation of the range in packed order.
 */
final class SegmentWalker
{
    private final long[] code;
    private final SegmentConsumer consumer;
    private long pendingDisplacement;
    private long pendingPacked;
    private long pendingLength;

    SegmentWalker(final long[] code, final SegmentConsumer consumer)
    {
        this.code = code;
        this.consumer = consumer;
    }

    void walk(final long extentBytes, final long from, final long to)
    {
        if (from < to)
        {
            vectorRange(0, 0, extentBytes, from, to, from);
        }
        if (pendingLength > 0)
        {
            consumer.accept(pendingDisplacement, pendingPacked, pendingLength);
            pendingLength = 0;
        }
    }

    private void node(final int index, final long base, final long from, final long to, final long packed)
    {
        final int record = index * NODE_LONGS;
        final long address = base + code[record + OFFSET];
        if (code[record + KIND] == KIND_BLOCK)
        {
            emit(address + from, packed, to - from);
        }
        else if (code[record + KIND] == KIND_VECTOR)
        {
            vectorRange((int)code[record + CHILD], address, code[record + STRIDE], from, to, packed);
        }
        else
        {
            final int table = (int)code[record + STRIDE];
            for (int j = 0; j < code[record + COUNT]; j++)
            {
                final long prefix = code[table + 2 * j + 1];
                final int child = (int)code[table + 2 * j];
                final long childFrom = Math.max(from - prefix, 0);
                final long childTo = Math.min(to - prefix, code[child * NODE_LONGS + PACKED]);
                if (childFrom < childTo)
                {
                    node(child, address, childFrom, childTo, packed + prefix + childFrom - from);
                }
            }
        }
    }

    private void vectorRange(final int child, final long address, final long strideBytes, final long from,
        final long to, final long packed)
    {
        final long elementBytes = code[child * NODE_LONGS + PACKED];
        for (long k = from / elementBytes; k * elementBytes < to; k++)
        {
            final long elementFrom = Math.max(from - k * elementBytes, 0);
            final long elementTo = Math.min(to - k * elementBytes, elementBytes);
            node(child, address + k * strideBytes, elementFrom, elementTo, packed + k * elementBytes + elementFrom -
                from);
        }
    }

    private void emit(final long displacement, final long packed, final long length)
    {
        if (pendingLength > 0 && pendingDisplacement + pendingLength == displacement)
        {
            pendingLength += length;
            return;
        }
        if (pendingLength > 0)
        {
            consumer.accept(pendingDisplacement, pendingPacked, pendingLength);
        }
        pendingDisplacement = displacement;
        pendingPacked = packed;
        pendingLength = length;
    }
}
