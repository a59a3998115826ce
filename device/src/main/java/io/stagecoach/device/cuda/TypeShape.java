package io.stagecoach.device.cuda;

import java.util.ArrayList;
import java.util.List;

import io.stagecoach.protocol.datatype.CompiledType;

/**
 * What the kernels need to know of a datatype, computed once: its node code, sizes and alignment, and, when the tree
 * is a chain of VECTORs ending in a BLOCK (the paper's 2D copy, a subarray face), that chain as dimensions.
 */
final class TypeShape
{
    private static final int NODE_LONGS = 6;

    private final long[] code;
    private final long sizeBytes;
    private final long extentBytes;
    private final int alignment;
    private final boolean regular;
    private final long displacementBytes;
    private final long runBytes;
    private final long[] counts;
    private final long[] strides;

    TypeShape(final CompiledType type)
    {
        this(type.code(), type.size(), type.extent(), type.alignment());
    }

    TypeShape(final long[] code, final long sizeBytes, final long extentBytes, final int alignment)
    {
        this.code = code;
        this.sizeBytes = sizeBytes;
        this.extentBytes = extentBytes;
        this.alignment = alignment;
        final List<long[]> levels = new ArrayList<>();
        long displacement = 0;
        int node = 0;
        boolean chain = sizeBytes > 0;
        while (chain)
        {
            final int at = node * NODE_LONGS;
            displacement += code[at + 1];
            final long kind = code[at];
            if (kind == 0)
            {
                break;
            }
            if (kind != 1)
            {
                chain = false;
                break;
            }
            levels.add(new long[] {code[at + 3], code[at + 4]});
            node = (int)code[at + 5];
        }
        regular = chain;
        displacementBytes = displacement;
        runBytes = chain ? code[node * NODE_LONGS + 2] : 0;
        counts = new long[levels.size()];
        strides = new long[levels.size()];
        for (int i = 0; i < levels.size(); i++)
        {
            final long[] level = levels.get(levels.size() - 1 - i);
            counts[i] = level[0];
            strides[i] = level[1];
        }
    }

    long[] code()
    {
        return code;
    }

    long sizeBytes()
    {
        return sizeBytes;
    }

    long extentBytes()
    {
        return extentBytes;
    }

    int alignment()
    {
        return alignment;
    }

    /**
     * @return true when the datatype is a run repeated over nested VECTORs, without SEQUENCE nodes.
     */
    boolean isRegular()
    {
        return regular;
    }

    long displacementBytes()
    {
        return displacementBytes;
    }

    long runBytes()
    {
        return runBytes;
    }

    /**
     * @return VECTOR counts, innermost first.
     */
    long[] counts()
    {
        return counts.clone();
    }

    /**
     * @return VECTOR strides in bytes, innermost first.
     */
    long[] strides()
    {
        return strides.clone();
    }
}
