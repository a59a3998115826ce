package io.stagecoach.rank;

import io.stagecoach.protocol.datatype.CompiledType;
import io.stagecoach.protocol.host.CrossMemory;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The ranges of a scattered message as a table of (address, length) pairs, the layout the kernel's scatter-gather
 * read takes: a same-node message whose rows are long enough crosses in one read from the sender's rows into the
 * receiver's, with no packing on either side. Only for layouts of at most {@link CrossMemory#MAX_VECTORS} ranges,
 * none shorter than {@link #MIN_RANGE_BYTES}: shorter ones copy faster packed.
 */
final class RangeTable
{
    /** Shortest range read in place; layouts with shorter ones are packed. */
    static final long MIN_RANGE_BYTES = 256;
    /** Bytes of a table of the most ranges. */
    static final long MAX_TABLE_BYTES = (long)CrossMemory.MAX_VECTORS * CrossMemory.VECTOR_BYTES;

    private RangeTable()
    {
    }

    /**
     * Writes the ranges of packed bytes [0, packedBytes) of {@code count} instances at {@code baseAddress}.
     *
     * @param tableAddress where the table goes, {@link #MAX_TABLE_BYTES} long.
     * @return the number of ranges, or -1 when the layout has more than allowed or one shorter than
     * {@link #MIN_RANGE_BYTES} before its last (the table is then partly written and meaningless).
     */
    static int fill(
        final CompiledType type, final long baseAddress, final long count, final long packedBytes,
        final long tableAddress)
    {
        if (packedBytes <= 0 || packedBytes / smallestBlockBytes(type) > CrossMemory.MAX_VECTORS)
        {
            return -1;
        }
        final UnsafeBuffer table = new UnsafeBuffer(tableAddress, (int)MAX_TABLE_BYTES);
        final int[] state = new int[3];
        type.forEachSegment(count, 0, packedBytes, (displacementBytes, packedOffsetBytes, lengthBytes) ->
        {
            final int index = state[0]++;
            if (index >= CrossMemory.MAX_VECTORS || state[2] != 0)
            {
                state[1] = 1;
                return;
            }
            if (lengthBytes < MIN_RANGE_BYTES && packedBytes > lengthBytes)
            {
                state[2] = 1;
            }
            table.putLong(index * CrossMemory.VECTOR_BYTES, baseAddress + displacementBytes);
            table.putLong(index * CrossMemory.VECTOR_BYTES + Long.BYTES, lengthBytes);
        });
        return state[1] != 0 ? -1 : state[0];
    }

    /**
     * Writes one range.
     *
     * @return 1.
     */
    static int single(final long address, final long lengthBytes, final long tableAddress)
    {
        final UnsafeBuffer table = new UnsafeBuffer(tableAddress, CrossMemory.VECTOR_BYTES);
        table.putLong(0, address);
        table.putLong(Long.BYTES, lengthBytes);
        return 1;
    }

    private static long smallestBlockBytes(final CompiledType type)
    {
        final long[] code = type.code();
        long smallest = Long.MAX_VALUE;
        for (int node = 0; node < type.nodeCount(); node++)
        {
            final int at = node * CompiledType.NODE_LONGS;
            if (code[at + CompiledType.KIND] == CompiledType.KIND_BLOCK && code[at + CompiledType.PACKED] > 0)
            {
                smallest = Math.min(smallest, code[at + CompiledType.PACKED]);
            }
        }
        return smallest == Long.MAX_VALUE ? 1 : smallest;
    }
}
