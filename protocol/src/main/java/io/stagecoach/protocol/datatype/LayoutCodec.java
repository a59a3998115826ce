package io.stagecoach.protocol.datatype;

import io.stagecoach.protocol.ErrorClass;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * A compiled type's layout as bytes, for a process that reads a message straight out of its sender's memory and so
 * must walk the sender's layout: the bounds, then the node code of {@link CompiledType#code()}. What is read back
 * is checked to be a well-formed tree (every child after its parent, every table inside the code), so that walking
 * it ends; whether its addresses stay inside the memory the reader maps is the reader's check.
 * <pre>
 *    0 version (long)   8 node count   16 depth   24 size   32 extent   40 lb   48 true lb   56 true ub
 *   64 code length in longs            72 code
 * </pre>
 */
public final class LayoutCodec
{
    /** Version of the encoding. */
    public static final long VERSION = 1;
    /** Bytes before the code. */
    public static final int HEADER_BYTES = 72;
    /** Deepest nesting read back. */
    public static final int MAX_DEPTH = 64;

    private LayoutCodec()
    {
    }

    /**
     * @return bytes {@link #write} takes for this type.
     */
    public static int lengthOf(final CompiledType type)
    {
        return HEADER_BYTES + type.codeShared().length * Long.BYTES;
    }

    /**
     * Writes the layout at an offset of a buffer with room for {@link #lengthOf} bytes.
     *
     * @return bytes written.
     */
    public static int write(final CompiledType type, final MutableDirectBuffer buffer, final int offset)
    {
        final long[] code = type.codeShared();
        buffer.putLong(offset, VERSION);
        buffer.putLong(offset + 8, type.nodeCount());
        buffer.putLong(offset + 16, type.depth());
        buffer.putLong(offset + 24, type.size());
        buffer.putLong(offset + 32, type.extent());
        buffer.putLong(offset + 40, type.lb());
        buffer.putLong(offset + 48, type.trueLb());
        buffer.putLong(offset + 56, type.trueUb());
        buffer.putLong(offset + 64, code.length);
        for (int i = 0; i < code.length; i++)
        {
            buffer.putLong(offset + HEADER_BYTES + i * Long.BYTES, code[i]);
        }
        return HEADER_BYTES + code.length * Long.BYTES;
    }

    /**
     * @param buffer      holds the layout.
     * @param offset      where it starts.
     * @param lengthBytes bytes from there that belong to it.
     * @param name        what the type is called in errors and descriptions.
     * @return the compiled type.
     * @throws DatatypeException naming the field and its limit when the bytes are not a well-formed layout.
     */
    public static CompiledType read(final DirectBuffer buffer, final int offset, final int lengthBytes,
        final String name)
    {
        if (lengthBytes < HEADER_BYTES)
        {
            throw invalid(name, "length " + lengthBytes + " is below the header's " + HEADER_BYTES + " bytes");
        }
        final long version = buffer.getLong(offset);
        if (version != VERSION)
        {
            throw invalid(name, "version " + version + " is not " + VERSION);
        }
        final long nodeCount = buffer.getLong(offset + 8);
        final long depth = buffer.getLong(offset + 16);
        final long codeLength = buffer.getLong(offset + 64);
        final long maxCodeLength = (lengthBytes - HEADER_BYTES) / Long.BYTES;
        if (codeLength < CompiledType.NODE_LONGS || codeLength > maxCodeLength)
        {
            throw invalid(name, "code of " + codeLength + " longs is outside [" + CompiledType.NODE_LONGS + ", " +
                maxCodeLength + "]");
        }
        if (nodeCount < 1 || nodeCount * CompiledType.NODE_LONGS > codeLength)
        {
            throw invalid(name, "node count " + nodeCount + " does not fit a code of " + codeLength + " longs");
        }
        if (depth < 1 || depth > MAX_DEPTH)
        {
            throw invalid(name, "depth " + depth + " is outside [1, " + MAX_DEPTH + "]");
        }
        final long[] code = new long[(int)codeLength];
        for (int i = 0; i < code.length; i++)
        {
            code[i] = buffer.getLong(offset + HEADER_BYTES + i * Long.BYTES);
        }
        checkTree(name, code, (int)nodeCount);
        return CompiledType.of(name, code, (int)nodeCount, (int)depth, buffer.getLong(offset + 24),
            buffer.getLong(offset + 32), buffer.getLong(offset + 40), buffer.getLong(offset + 48),
            buffer.getLong(offset + 56));
    }

    private static void checkTree(final String name, final long[] code, final int nodeCount)
    {
        final int tablesStart = nodeCount * CompiledType.NODE_LONGS;
        for (int i = 0; i < nodeCount; i++)
        {
            final int record = i * CompiledType.NODE_LONGS;
            final long kind = code[record + CompiledType.KIND];
            final long count = code[record + CompiledType.COUNT];
            if (code[record + CompiledType.PACKED] < 0 || count < 0)
            {
                throw invalid(name, "node " + i + " has a negative size or count");
            }
            if (kind == CompiledType.KIND_VECTOR)
            {
                final long child = code[record + CompiledType.CHILD];
                if (child <= i || child >= nodeCount)
                {
                    throw invalid(name, "vector node " + i + " names child " + child + ", outside (" + i + ", " +
                        nodeCount + ")");
                }
            }
            else if (kind == CompiledType.KIND_SEQUENCE)
            {
                final long table = code[record + CompiledType.STRIDE];
                if (table < tablesStart || table + 2 * count > code.length)
                {
                    throw invalid(name, "sequence node " + i + " names a table of " + count + " children at " + table +
                        ", outside [" + tablesStart + ", " + code.length + "]");
                }
                for (int j = 0; j < count; j++)
                {
                    final long child = code[(int)table + 2 * j];
                    if (child <= i || child >= nodeCount)
                    {
                        throw invalid(name, "sequence node " + i + " names child " + child + ", outside (" + i +
                            ", " + nodeCount + ")");
                    }
                }
            }
            else if (kind != CompiledType.KIND_BLOCK)
            {
                throw invalid(name, "node " + i + " has kind " + kind + ", not 0, 1 or 2");
            }
        }
    }

    private static DatatypeException invalid(final String name, final String problem)
    {
        return new DatatypeException(ErrorClass.ARG, "layout of " + name + " is not well formed: " + problem);
    }
}
