package io.stagecoach.device;

import io.stagecoach.protocol.datatype.CompiledType;

/**
 * Host-side questions about a compiled datatype that the packers ask before a launch: where a packed byte lies in
 * the typed layout, and whether a byte range of the packed stream is one contiguous run (then a plain copy replaces
 * the kernel). Descends the node code in O(depth), never walks segments.
 */
final class TypeLayout
{
    private static final int NODE_LONGS = CompiledType.NODE_LONGS;
    private static final int BLOCK = CompiledType.KIND_BLOCK;
    private static final int VECTOR = CompiledType.KIND_VECTOR;

    private final long[] code;
    private final long sizeBytes;
    private final long extentBytes;
    private final boolean contiguous;
    private final long rootOffsetBytes;

    TypeLayout(final CompiledType type)
    {
        this.code = type.code();
        this.sizeBytes = type.size();
        this.extentBytes = type.extent();
        this.contiguous = type.isContiguous();
        this.rootOffsetBytes = code[1];
    }

    long sizeBytes()
    {
        return sizeBytes;
    }

    /**
     * @param packedOffset a byte of the packed stream.
     * @return its offset from the buffer address in the typed layout.
     */
    long displacement(final long packedOffset)
    {
        if (contiguous)
        {
            return rootOffsetBytes + packedOffset;
        }
        final long instance = packedOffset / sizeBytes;
        long p = packedOffset - instance * sizeBytes;
        long address = instance * extentBytes;
        int node = 0;
        while (true)
        {
            final int at = node * NODE_LONGS;
            address += code[at + 1];
            final int kind = (int)code[at];
            if (kind == BLOCK)
            {
                return address + p;
            }
            if (kind == VECTOR)
            {
                final int child = (int)code[at + 5];
                final long childBytes = code[child * NODE_LONGS + 2];
                final long k = p / childBytes;
                p -= k * childBytes;
                address += k * code[at + 4];
                node = child;
            }
            else
            {
                final int entry = sequenceEntry(at, p);
                p -= code[entry + 1];
                node = (int)code[entry];
            }
        }
    }

    /**
     * @param count        instances in the buffer.
     * @param packedOffset a byte of the packed stream.
     * @return how many packed bytes from {@code packedOffset} on lie contiguously in the typed layout.
     */
    long runRemaining(final long count, final long packedOffset)
    {
        if (contiguous)
        {
            return count * sizeBytes - packedOffset;
        }
        long p = packedOffset % sizeBytes;
        int node = 0;
        while (true)
        {
            final int at = node * NODE_LONGS;
            final int kind = (int)code[at];
            if (kind == BLOCK)
            {
                return code[at + 2] - p;
            }
            if (kind == VECTOR)
            {
                final int child = (int)code[at + 5];
                final long childBytes = code[child * NODE_LONGS + 2];
                p -= (p / childBytes) * childBytes;
                node = child;
            }
            else
            {
                final int entry = sequenceEntry(at, p);
                p -= code[entry + 1];
                node = (int)code[entry];
            }
        }
    }

    private int sequenceEntry(final int at, final long p)
    {
        final int children = (int)code[at + 3];
        final int table = (int)code[at + 4];
        int low = 0;
        int high = children - 1;
        while (low < high)
        {
            final int mid = (low + high + 1) >>> 1;
            if (code[table + 2 * mid + 1] <= p)
            {
                low = mid;
            }
            else
            {
                high = mid - 1;
            }
        }
        return table + 2 * low;
    }
}
