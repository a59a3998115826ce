package io.stagecoach.protocol.datatype;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import io.stagecoach.protocol.ErrorClass;

/**
 * The run-length form of a type signature: a run of one basic type, a repetition of a node, or a sequence of
 * nodes. Its size follows the description of the datatype, never its element count. Each node carries the
 * polynomial hash of the basic-type sequence it stands for (modulo the Mersenne prime 2^61-1), which composes
 * under concatenation and repetition without expanding anything.
 */
final class SignatureNode
{
    static final int RUN = 0;
    static final int REPEAT = 1;
    static final int SEQUENCE = 2;

    static final long MODULUS = (1L << 61) - 1;
    static final long BASE = 0x1F3D5B79A2C4E68BL & MODULUS;
    static final SignatureNode EMPTY = new SignatureNode(SEQUENCE, -1, 0, null, new SignatureNode[0], 0, 0, 0, 1);

    final int kind;
    final int basic;
    final long count;
    final SignatureNode child;
    final SignatureNode[] children;
    final long[] lengthPrefix;
    final long length;
    final long sizeBytes;
    final long hash;
    final long basePower;

    private SignatureNode(
        final int kind, final int basic, final long count, final SignatureNode child, final SignatureNode[] children,
        final long length, final long sizeBytes, final long hash, final long basePower)
    {
        this.kind = kind;
        this.basic = basic;
        this.count = count;
        this.child = child;
        this.children = children;
        this.length = length;
        this.sizeBytes = sizeBytes;
        this.hash = hash;
        this.basePower = basePower;
        this.lengthPrefix = children == null ? null : prefixLengths(children);
    }

    static SignatureNode run(final BasicType type, final long count)
    {
        if (count == 0)
        {
            return EMPTY;
        }
        final long[] geometric = geometric(BASE, count);
        return new SignatureNode(RUN, type.ordinal(), count, null, null, count,
            Checked.multiply(count, type.sizeBytes(), "signature size in bytes"),
            mulMod(symbol(type), geometric[0]), geometric[1]);
    }

    static SignatureNode repeat(final long count, final SignatureNode node)
    {
        if (count < 0)
        {
            throw new DatatypeException(ErrorClass.COUNT, "signature repetition count " + count + " is negative");
        }
        if (count == 0 || node.length == 0)
        {
            return EMPTY;
        }
        if (count == 1)
        {
            return node;
        }
        if (node.kind == RUN)
        {
            return run(BasicType.of(node.basic), Checked.multiply(count, node.count, "signature length"));
        }
        if (node.kind == REPEAT)
        {
            return repeat(Checked.multiply(count, node.count, "signature length"), node.child);
        }
        final long[] geometric = geometric(node.basePower, count);
        return new SignatureNode(REPEAT, -1, count, node, null,
            Checked.multiply(count, node.length, "signature length"),
            Checked.multiply(count, node.sizeBytes, "signature size in bytes"),
            mulMod(node.hash, geometric[0]), geometric[1]);
    }

    static SignatureNode sequence(final List<SignatureNode> parts)
    {
        final List<SignatureNode> flat = new ArrayList<>(parts.size());
        for (final SignatureNode part : parts)
        {
            if (part.kind == SEQUENCE)
            {
                for (final SignatureNode inner : part.children)
                {
                    append(flat, inner);
                }
            }
            else
            {
                append(flat, part);
            }
        }
        if (flat.isEmpty())
        {
            return EMPTY;
        }
        if (flat.size() == 1)
        {
            return flat.get(0);
        }
        long length = 0;
        long sizeBytes = 0;
        long hash = 0;
        long basePower = 1;
        for (final SignatureNode part : flat)
        {
            length = Checked.add(length, part.length, "signature length");
            sizeBytes = Checked.add(sizeBytes, part.sizeBytes, "signature size in bytes");
            hash = addMod(mulMod(hash, part.basePower), part.hash);
            basePower = mulMod(basePower, part.basePower);
        }
        return new SignatureNode(
            SEQUENCE, -1, 0, null, flat.toArray(new SignatureNode[0]), length, sizeBytes, hash, basePower);
    }

    static SignatureNode concat(final SignatureNode first, final SignatureNode second)
    {
        return sequence(List.of(first, second));
    }

    /**
     * @param n number of leading basic elements, 0 <= n <= length.
     * @return the node for the first n elements.
     */
    SignatureNode prefix(final long n)
    {
        if (n == length)
        {
            return this;
        }
        if (n == 0)
        {
            return EMPTY;
        }
        switch (kind)
        {
            case RUN:
                return run(BasicType.of(basic), n);
            case REPEAT:
            {
                final long whole = n / child.length;
                return concat(repeat(whole, child), child.prefix(n - whole * child.length));
            }
            default:
            {
                final int index = childAt(lengthPrefix, n);
                final List<SignatureNode> parts = new ArrayList<>(index + 1);
                parts.addAll(Arrays.asList(children).subList(0, index));
                parts.add(children[index].prefix(n - lengthPrefix[index]));
                return sequence(parts);
            }
        }
    }

    /**
     * @param bytes a number of leading packed bytes, 0 <= bytes <= sizeBytes.
     * @return the number of whole basic elements in them, or -1 when they end inside an element.
     */
    long elementsInBytes(final long bytes)
    {
        if (bytes == sizeBytes)
        {
            return length;
        }
        if (bytes == 0)
        {
            return 0;
        }
        switch (kind)
        {
            case RUN:
            {
                final int elementBytes = BasicType.of(basic).sizeBytes();
                return bytes % elementBytes == 0 ? bytes / elementBytes : -1;
            }
            case REPEAT:
            {
                final long whole = bytes / child.sizeBytes;
                final long rest = child.elementsInBytes(bytes - whole * child.sizeBytes);
                return rest < 0 ? -1 : whole * child.length + rest;
            }
            default:
            {
                long elements = 0;
                long remaining = bytes;
                for (final SignatureNode part : children)
                {
                    if (remaining <= part.sizeBytes)
                    {
                        final long rest = part.elementsInBytes(remaining);
                        return rest < 0 ? -1 : elements + rest;
                    }
                    remaining -= part.sizeBytes;
                    elements += part.length;
                }
                return elements;
            }
        }
    }

    void forEachRun(final TypeSignature.RunConsumer consumer, final RunMerger merger)
    {
        switch (kind)
        {
            case RUN:
                merger.add(basic, count, consumer);
                break;
            case REPEAT:
                for (long i = 0; i < count; i++)
                {
                    child.forEachRun(consumer, merger);
                }
                break;
            default:
                for (final SignatureNode part : children)
                {
                    part.forEachRun(consumer, merger);
                }
                break;
        }
    }

    public String toString()
    {
        switch (kind)
        {
            case RUN:
                return BasicType.of(basic) + (count == 1 ? "" : "x" + count);
            case REPEAT:
                return "(" + child + ")x" + count;
            default:
                final StringBuilder builder = new StringBuilder();
                for (int i = 0; i < children.length; i++)
                {
                    builder.append(i == 0 ? "" : ", ").append(children[i]);
                }
                return kind == SEQUENCE && children.length == 0 ? "" : builder.toString();
        }
    }

    static final class RunMerger
    {
        private int basic = -1;
        private long count;

        void add(final int basic, final long count, final TypeSignature.RunConsumer consumer)
        {
            if (basic == this.basic)
            {
                this.count += count;
            }
            else
            {
                flush(consumer);
                this.basic = basic;
                this.count = count;
            }
        }

        void flush(final TypeSignature.RunConsumer consumer)
        {
            if (basic >= 0)
            {
                consumer.accept(BasicType.of(basic), count);
                basic = -1;
            }
        }
    }

    static long symbol(final BasicType type)
    {
        long z = (type.ordinal() + 1) * 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        z ^= z >>> 31;
        return (z & MODULUS) % (MODULUS - 1) + 1;
    }

    /**
     * @return {sum of base^i for i in [0, count), base^count} modulo 2^61-1, by doubling.
     */
    static long[] geometric(final long base, final long count)
    {
        long sum = 0;
        long power = 1;
        long blockSum = 1;
        long blockPower = base;
        long remaining = count;
        while (remaining > 0)
        {
            if ((remaining & 1) != 0)
            {
                sum = addMod(sum, mulMod(power, blockSum));
                power = mulMod(power, blockPower);
            }
            blockSum = addMod(blockSum, mulMod(blockPower, blockSum));
            blockPower = mulMod(blockPower, blockPower);
            remaining >>>= 1;
        }
        return new long[]{ sum, power };
    }

    static long mulMod(final long a, final long b)
    {
        final long high = Math.multiplyHigh(a, b);
        final long low = a * b;
        long result = (low & MODULUS) + ((low >>> 61) | (high << 3));
        result = (result & MODULUS) + (result >>> 61);
        return result >= MODULUS ? result - MODULUS : result;
    }

    static long addMod(final long a, final long b)
    {
        final long sum = a + b;
        return sum >= MODULUS ? sum - MODULUS : sum;
    }

    private static void append(final List<SignatureNode> flat, final SignatureNode part)
    {
        if (part.length == 0)
        {
            return;
        }
        final int last = flat.size() - 1;
        if (last >= 0 && part.kind == RUN && flat.get(last).kind == RUN && flat.get(last).basic == part.basic)
        {
            flat.set(last, run(BasicType.of(part.basic),
                Checked.add(flat.get(last).count, part.count, "signature length")));
            return;
        }
        flat.add(part);
    }

    private static long[] prefixLengths(final SignatureNode[] children)
    {
        final long[] prefix = new long[children.length];
        long total = 0;
        for (int i = 0; i < children.length; i++)
        {
            prefix[i] = total;
            total += children[i].length;
        }
        return prefix;
    }

    private static int childAt(final long[] prefix, final long n)
    {
        int low = 0;
        int high = prefix.length - 1;
        while (low < high)
        {
            final int mid = (low + high + 1) >>> 1;
            if (prefix[mid] < n)
            {
                low = mid;
            }
            else
            {
                high = mid - 1;
            }
        }
        return low;
    }
}
