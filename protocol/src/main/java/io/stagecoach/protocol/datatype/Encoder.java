package io.stagecoach.protocol.datatype;

/**
 * Writes a layout tree into the flat {@code long[]} encoding of {@link CompiledType#code()}: node records in
 * pre-order, then the SEQUENCE child tables.
 */
final class Encoder
{
    private final long[] code;
    private int nextNode;
    private int nextTable;

    private Encoder(final int nodeCount, final int tableLongs)
    {
        code = new long[nodeCount * CompiledType.NODE_LONGS + tableLongs];
        nextTable = nodeCount * CompiledType.NODE_LONGS;
    }

    static long[] encode(final Node root)
    {
        final Encoder encoder = new Encoder(root.nodeCount(), tableLongs(root));
        encoder.write(root);
        return encoder.code;
    }

    private int write(final Node node)
    {
        final int index = nextNode++;
        final int record = index * CompiledType.NODE_LONGS;
        code[record + CompiledType.KIND] = node.kind;
        code[record + CompiledType.OFFSET] = node.offsetBytes;
        code[record + CompiledType.PACKED] = node.packedBytes;
        if (node.kind == Node.VECTOR)
        {
            code[record + CompiledType.COUNT] = node.count;
            code[record + CompiledType.STRIDE] = node.strideBytes;
            code[record + CompiledType.CHILD] = write(node.child);
        }
        else if (node.kind == Node.SEQUENCE)
        {
            final int table = nextTable;
            nextTable += 2 * node.children.length;
            code[record + CompiledType.COUNT] = node.children.length;
            code[record + CompiledType.STRIDE] = table;
            long prefix = 0;
            for (int j = 0; j < node.children.length; j++)
            {
                code[table + 2 * j] = write(node.children[j]);
                code[table + 2 * j + 1] = prefix;
                prefix += node.children[j].packedBytes;
            }
        }
        return index;
    }

    private static int tableLongs(final Node node)
    {
        if (node.kind == Node.VECTOR)
        {
            return tableLongs(node.child);
        }
        if (node.kind == Node.SEQUENCE)
        {
            int longs = 2 * node.children.length;
            for (final Node child : node.children)
            {
                longs += tableLongs(child);
            }
            return longs;
        }
        return 0;
    }
}
