package io.stagecoach.protocol.datatype;

import java.util.ArrayList;
import java.util.List;

/**
 * Builds simplified layout trees. The builders keep every tree in normal form, which is what makes the compiled
 * form proportional to the description and lets kernels see N-dimensional vectors:
 * <ul>
 * <li>empty pieces (zero count, zero bytes) disappear; a one-element VECTOR is its child;</li>
 * <li>a VECTOR of a BLOCK whose stride equals the block length is one bigger BLOCK;</li>
 * <li>a VECTOR of a VECTOR whose outer stride equals inner count times inner stride is one VECTOR;</li>
 * <li>a SEQUENCE is flattened, then the paper's Algorithm 1 runs over its children: consecutive children of
 * equal shape at equal distance merge into one VECTOR (extending a neighbouring VECTOR of that shape where the
 * distance continues it), and adjacent contiguous BLOCKs merge, repeated until nothing changes.</li>
 * </ul>
 * A null node stands for "no bytes".
 */
final class Layouts
{
    private Layouts()
    {
    }

    static Node block(final long offsetBytes, final long lengthBytes)
    {
        return lengthBytes == 0 ? null : Node.block(offsetBytes, lengthBytes);
    }

    static Node vector(final long offsetBytes, final long count, final long strideBytes, final Node child)
    {
        if (child == null || count == 0)
        {
            return null;
        }
        if (count == 1)
        {
            return child.withOffset(Checked.add(offsetBytes, child.offsetBytes, "displacement"));
        }
        if (child.kind == Node.BLOCK && strideBytes == child.packedBytes)
        {
            return Node.block(Checked.add(offsetBytes, child.offsetBytes, "displacement"),
                Checked.multiply(count, child.packedBytes, "block length"));
        }
        if (child.kind == Node.VECTOR && strideBytes == child.count * child.strideBytes)
        {
            return vector(Checked.add(offsetBytes, child.offsetBytes, "displacement"),
                Checked.multiply(count, child.count, "vector count"), child.strideBytes, child.child);
        }
        return Node.vector(offsetBytes, count, strideBytes, child);
    }

    static Node shift(final long offsetBytes, final Node node)
    {
        return node == null ? null : node.withOffset(Checked.add(offsetBytes, node.offsetBytes, "displacement"));
    }

    static Node sequence(final List<Node> parts)
    {
        List<Node> items = flatten(parts);
        int before;
        do
        {
            before = items.size();
            items = mergeContiguousBlocks(vectorize(items));
        }
        while (items.size() < before && items.size() > 1);
        if (items.isEmpty())
        {
            return null;
        }
        return items.size() == 1 ? items.get(0) : Node.sequence(0, items.toArray(new Node[0]));
    }

    private static List<Node> flatten(final List<Node> parts)
    {
        final List<Node> flat = new ArrayList<>(parts.size());
        for (final Node part : parts)
        {
            if (part == null)
            {
                continue;
            }
            if (part.kind == Node.SEQUENCE)
            {
                for (final Node inner : part.children)
                {
                    flat.add(shift(part.offsetBytes, inner));
                }
            }
            else
            {
                flat.add(part);
            }
        }
        return flat;
    }

    /**
     * Algorithm 1: a group is (base, n, stride, element at offset 0); it grows while the next child continues it.
     */
    private static List<Node> vectorize(final List<Node> items)
    {
        final List<Node> out = new ArrayList<>(items.size());
        Group group = null;
        for (final Node item : items)
        {
            final Group next = Group.of(item);
            if (group != null && group.absorb(next))
            {
                continue;
            }
            if (group != null)
            {
                out.add(group.toNode());
            }
            group = next;
        }
        if (group != null)
        {
            out.add(group.toNode());
        }
        return mergeEqualShapes(out);
    }

    private static List<Node> mergeEqualShapes(final List<Node> items)
    {
        final List<Node> out = new ArrayList<>(items.size());
        int i = 0;
        while (i < items.size())
        {
            final Node first = items.get(i);
            int j = i + 1;
            if (j < items.size() && first.sameShape(items.get(j)))
            {
                final long stride = items.get(j).offsetBytes - first.offsetBytes;
                while (j < items.size() && first.sameShape(items.get(j)) &&
                    items.get(j).offsetBytes - items.get(j - 1).offsetBytes == stride)
                {
                    j++;
                }
            }
            out.add(j - i == 1 ? first :
                Node.vector(first.offsetBytes, j - i, items.get(i + 1).offsetBytes - first.offsetBytes,
                first.withOffset(0)));
            i = j;
        }
        return out;
    }

    private static List<Node> mergeContiguousBlocks(final List<Node> items)
    {
        final List<Node> out = new ArrayList<>(items.size());
        for (final Node item : items)
        {
            final int last = out.size() - 1;
            if (last >= 0 && item.kind == Node.BLOCK && out.get(last).kind == Node.BLOCK &&
                out.get(last).offsetBytes + out.get(last).packedBytes == item.offsetBytes)
            {
                out.set(last, Node.block(out.get(last).offsetBytes, out.get(last).packedBytes + item.packedBytes));
            }
            else
            {
                out.add(item);
            }
        }
        return out;
    }

    private static final class Group
    {
        private final long baseBytes;
        private long count;
        private long strideBytes;
        private final Node element;

        private Group(final long baseBytes, final long count, final long strideBytes, final Node element)
        {
            this.baseBytes = baseBytes;
            this.count = count;
            this.strideBytes = strideBytes;
            this.element = element;
        }

        static Group of(final Node node)
        {
            if (node.kind == Node.VECTOR)
            {
                return new Group(node.offsetBytes + node.child.offsetBytes, node.count, node.strideBytes,
                    node.child.withOffset(0));
            }
            return new Group(node.offsetBytes, 1, 0, node.withOffset(0));
        }

        boolean absorb(final Group next)
        {
            if (!element.sameShape(next.element))
            {
                return false;
            }
            final long stride = count > 1 ? strideBytes : next.count > 1 ? next.strideBytes :
                next.baseBytes - baseBytes;
            if ((next.count > 1 && next.strideBytes != stride) || next.baseBytes - baseBytes != count * stride)
            {
                return false;
            }
            strideBytes = stride;
            count += next.count;
            return true;
        }

        Node toNode()
        {
            return count == 1 ? element.withOffset(baseBytes) : vector(baseBytes, count, strideBytes, element);
        }
    }
}
