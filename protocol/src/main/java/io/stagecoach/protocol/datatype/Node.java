package io.stagecoach.protocol.datatype;

import java.util.Arrays;

/**
 * One node of a datatype's layout tree before encoding: a BLOCK of contiguous bytes, a VECTOR of equally spaced
 * copies of a child, or a SEQUENCE of children packed one after the other. Offsets are relative to the parent's
 * base address. Nodes are immutable; {@link Layouts} builds and simplifies them.
 */
final class Node
{
    static final int BLOCK = 0;
    static final int VECTOR = 1;
    static final int SEQUENCE = 2;

    final int kind;
    final long offsetBytes;
    final long packedBytes;
    final long count;
    final long strideBytes;
    final Node child;
    final Node[] children;
    final int shapeHash;

    private Node(final int kind, final long offsetBytes, final long packedBytes, final long count,
        final long strideBytes, final Node child, final Node[] children, final int shapeHash)
    {
        this.kind = kind;
        this.offsetBytes = offsetBytes;
        this.packedBytes = packedBytes;
        this.count = count;
        this.strideBytes = strideBytes;
        this.child = child;
        this.children = children;
        this.shapeHash = shapeHash;
    }

    static Node block(final long offsetBytes, final long lengthBytes)
    {
        return new Node(BLOCK, offsetBytes, lengthBytes, 0, 0, null, null, Long.hashCode(lengthBytes) * 31 + 7);
    }

    static Node vector(final long offsetBytes, final long count, final long strideBytes, final Node child)
    {
        final long packed = Checked.multiply(count, child.packedBytes, "packed size");
        final int hash = ((Long.hashCode(count) * 31 + Long.hashCode(strideBytes)) * 31 + child.fullHash()) * 31 + 1;
        return new Node(VECTOR, offsetBytes, packed, count, strideBytes, child, null, hash);
    }

    static Node sequence(final long offsetBytes, final Node[] children)
    {
        long packed = 0;
        int hash = 2;
        for (final Node node : children)
        {
            packed = Checked.add(packed, node.packedBytes, "packed size");
            hash = hash * 31 + node.fullHash();
        }
        return new Node(SEQUENCE, offsetBytes, packed, children.length, 0, null, children, hash);
    }

    Node withOffset(final long newOffsetBytes)
    {
        return newOffsetBytes == offsetBytes ? this :
            new Node(kind, newOffsetBytes, packedBytes, count, strideBytes, child, children, shapeHash);
    }

    int fullHash()
    {
        return shapeHash * 31 + Long.hashCode(offsetBytes);
    }

    /**
     * @return whether both nodes describe the same layout apart from their own offsets.
     */
    boolean sameShape(final Node other)
    {
        if (this == other)
        {
            return true;
        }
        if (kind != other.kind || shapeHash != other.shapeHash || packedBytes != other.packedBytes ||
            count != other.count || strideBytes != other.strideBytes)
        {
            return false;
        }
        switch (kind)
        {
            case BLOCK:
                return true;
            case VECTOR:
                return child.offsetBytes == other.child.offsetBytes && child.sameShape(other.child);
            default:
                for (int i = 0; i < children.length; i++)
                {
                    if (children[i].offsetBytes != other.children[i].offsetBytes ||
                        !children[i].sameShape(other.children[i]))
                    {
                        return false;
                    }
                }
                return true;
        }
    }

    int depth()
    {
        switch (kind)
        {
            case BLOCK:
                return 1;
            case VECTOR:
                return 1 + child.depth();
            default:
                return 1 + Arrays.stream(children).mapToInt(Node::depth).max().orElse(0);
        }
    }

    int nodeCount()
    {
        switch (kind)
        {
            case BLOCK:
                return 1;
            case VECTOR:
                return 1 + child.nodeCount();
            default:
                return 1 + Arrays.stream(children).mapToInt(Node::nodeCount).sum();
        }
    }
}
