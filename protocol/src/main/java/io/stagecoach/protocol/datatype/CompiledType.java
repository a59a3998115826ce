package io.stagecoach.protocol.datatype;

import java.nio.ByteBuffer;

import io.stagecoach.protocol.ErrorClass;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * A committed datatype compiled into a compact tree of BLOCK, VECTOR and SEQUENCE nodes (see {@link #code()} for
 * the encoding kernels consume), with host pack and unpack of any byte range of the packed stream of
 * {@code count} instances. The tree's size follows the datatype's description, never its element count.
 * <p>
 * Addressing: packed byte p of {@code count} instances from base address b belongs to instance i = p / size(),
 * which starts at b + i * extent(); inside it the tree is descended as described on {@link #code()}.
 * <p>
 * Instances are immutable and safe to share between threads.
 */
public final class CompiledType
{
    /** Longs per node record. */
    public static final int NODE_LONGS = 6;
    /** Field of a node record: its kind. */
    public static final int KIND = 0;
    /** Field: offset in bytes relative to the parent's base address (signed). */
    public static final int OFFSET = 1;
    /** Field: packed bytes of one instance of the node. */
    public static final int PACKED = 2;
    /** Field: VECTOR count or SEQUENCE number of children. */
    public static final int COUNT = 3;
    /** Field: VECTOR stride in bytes (signed) or SEQUENCE index in code of its child table. */
    public static final int STRIDE = 4;
    /** Field: VECTOR child node index. */
    public static final int CHILD = 5;
    /** Kind: contiguous bytes. */
    public static final int KIND_BLOCK = 0;
    /** Kind: count copies of a child, stride bytes apart. */
    public static final int KIND_VECTOR = 1;
    /** Kind: children packed one after the other. */
    public static final int KIND_SEQUENCE = 2;

    private static final int MAX_ALIGNMENT = 16;

    private final String name;
    private final long[] code;
    private final int nodeCount;
    private final long size;
    private final long extent;
    private final long lb;
    private final long trueLb;
    private final long trueUb;
    private final int depth;
    private final int alignment;
    private final boolean contiguous;
    private final long minBlockBytes;

    private CompiledType(final String name, final long[] code, final int nodeCount, final int depth,
        final long size, final long extent, final long lb, final long trueLb, final long trueUb)
    {
        this.name = name;
        this.code = code;
        this.nodeCount = nodeCount;
        this.depth = depth;
        this.size = size;
        this.extent = extent;
        this.lb = lb;
        this.trueLb = trueLb;
        this.trueUb = trueUb;
        this.alignment = computeAlignment(code, nodeCount, extent);
        this.contiguous = code[KIND] == KIND_BLOCK && size == extent;
        this.minBlockBytes = computeMinBlockBytes(code, nodeCount);
    }

    /**
     * A compiled type from its parts, as {@link LayoutCodec} reads them; the code is checked there.
     */
    static CompiledType of(final String name, final long[] code, final int nodeCount, final int depth,
        final long size, final long extent, final long lb, final long trueLb, final long trueUb)
    {
        return new CompiledType(name, code, nodeCount, depth, size, extent, lb, trueLb, trueUb);
    }

    static CompiledType compile(final Datatype type, final Node layout)
    {
        final Node root = layout == null ? Node.block(0, 0) : layout;
        return new CompiledType(type.toString(), Encoder.encode(root), root.nodeCount(), root.depth(),
            type.sizeUnchecked(), type.extentUnchecked(), type.lbUnchecked(), type.trueLbUnchecked(),
            type.trueUbUnchecked());
    }

    /**
     * The encoded tree. Node i occupies {@code code[i*6 .. i*6+5]}, node 0 is the root:
     * <pre>
     * [0] kind: 0 = BLOCK, 1 = VECTOR, 2 = SEQUENCE
     * [1] offsetBytes (signed): displacement relative to the parent's base address
     * [2] packedBytes of one instance of the node
     * [3] BLOCK: 0; VECTOR: count; SEQUENCE: number of children n
     * [4] BLOCK: 0; VECTOR: strideBytes (signed); SEQUENCE: index in code of its child table
     * [5] BLOCK: 0; VECTOR: child node index; SEQUENCE: 0
     * </pre>
     * After the node records come the SEQUENCE child tables: n pairs (child node index, packed offset of that
     * child inside the sequence; the first is 0). To address packed byte p of one instance at base b: BLOCK: b +
     * offset + p; VECTOR: k = p / packed(child), continue in the child with p - k * packed(child) at base b +
     * offset + k * stride; SEQUENCE: the child j with prefix[j] &lt;= p &lt; prefix[j+1], with p - prefix[j] at
     * base b + offset. A type without data is a single BLOCK of 0 bytes.
     *
     * @return a copy of the encoding.
     */
    public long[] code()
    {
        return code.clone();
    }

    /**
     * @return the shortest contiguous block of the layout in bytes (0 for a type without data): how much one
     * address, and so one cache-line transfer, brings at worst.
     */
    public long minBlockBytes()
    {
        return minBlockBytes;
    }

    /**
     * @return number of node records in {@link #code()}.
     */
    public int nodeCount()
    {
        return nodeCount;
    }

    /**
     * @return packed bytes of one instance.
     */
    public long size()
    {
        return size;
    }

    /**
     * @return distance in bytes between consecutive instances.
     */
    public long extent()
    {
        return extent;
    }

    /**
     * @return lower bound of the datatype in bytes.
     */
    public long lb()
    {
        return lb;
    }

    /**
     * @return upper bound of the datatype in bytes, {@code lb() + extent()}.
     */
    public long ub()
    {
        return lb + extent;
    }

    /**
     * @return lowest byte displacement of the data (0 without data), as {@link Datatype#trueLb()}.
     */
    public long trueLb()
    {
        return trueLb;
    }

    /**
     * @return bytes from {@link #trueLb()} to one past the highest byte of the data, as
     * {@link Datatype#trueExtent()}.
     */
    public long trueExtent()
    {
        return trueUb - trueLb;
    }

    /**
     * MPI_PACK_SIZE: packed bytes of {@code count} instances.
     *
     * @param count instances, >= 0.
     * @return {@code count * size()}.
     * @throws DatatypeException of class {@link ErrorClass#COUNT} when the count is negative or the bytes overflow
     *                           the long limit.
     */
    public long packSize(final long count)
    {
        return StreamPacker.packSize(name, size, count);
    }

    /**
     * @return levels of the tree, 1 for a single BLOCK.
     */
    public int depth()
    {
        return depth;
    }

    /**
     * @return the largest power of two, at most 16, dividing every offset, block length, stride and the extent:
     * the unit a kernel may copy with one load and store.
     */
    public int alignment()
    {
        return alignment;
    }

    /**
     * @return whether any number of instances is one contiguous run of bytes (one BLOCK and size == extent);
     * it starts at {@code trueLb} of the datatype.
     */
    public boolean isContiguous()
    {
        return contiguous;
    }

    /**
     * @return a readable dump of the tree, one node per line.
     */
    public String describe()
    {
        final StringBuilder builder = new StringBuilder(name).append('\n')
            .append("size=").append(size).append(" extent=").append(extent).append(" lb=").append(lb)
            .append(" nodes=").append(nodeCount).append(" depth=").append(depth).append(" alignment=")
            .append(alignment).append(contiguous ? " contiguous" : "").append('\n');
        describe(builder, 0, 1);
        return builder.toString();
    }

    /**
     * Calls {@code consumer} with the flattened segments of packed bytes [packedOffset, packedOffset +
     * lengthBytes) of {@code count} instances, in packed order; segments that continue each other in memory are
     * merged and the first and last are cut at the range ends.
     *
     * @param count        instances in the buffer, >= 0.
     * @param packedOffset first packed byte, >= 0.
     * @param lengthBytes  bytes, with packedOffset + lengthBytes <= count * size().
     * @param consumer     receives the segments.
     */
    public void forEachSegment(final long count, final long packedOffset, final long lengthBytes,
        final SegmentConsumer consumer)
    {
        checkRange(count, packedOffset, lengthBytes);
        new SegmentWalker(code, consumer).walk(extent, packedOffset, packedOffset + lengthBytes);
    }

    /**
     * Copies one instance of this type at {@code srcAddress} straight into one instance of {@code to} at
     * {@code dstAddress}, without a packed stream between them, where both are rows: a vector of equal blocks (a
     * halo face's rows on both sides), with as many rows of the same length. One strided copy.
     *
     * @param srcAddress where displacement 0 of this type's instance is.
     * @param to         the destination's type.
     * @param dstAddress where displacement 0 of its instance is.
     * @return true when copied; false when the two are not rows alike, and nothing was touched.
     */
    public boolean copyRows(final long srcAddress, final CompiledType to, final long dstAddress)
    {
        if (!isRows() || !to.isRows() || code[COUNT] != to.code[COUNT] ||
            code[NODE_LONGS + PACKED] != to.code[NODE_LONGS + PACKED])
        {
            return false;
        }
        final long rows = code[COUNT];
        final long rowBytes = code[NODE_LONGS + PACKED];
        final long src = srcAddress + code[OFFSET] + code[NODE_LONGS + OFFSET];
        final long dst = dstAddress + to.code[OFFSET] + to.code[NODE_LONGS + OFFSET];
        if (NativeCopier.takes(null, null, rowBytes, rows))
        {
            NativeCopier.gather(null, src, code[STRIDE], null, dst, to.code[STRIDE], rowBytes, rows);
        }
        else
        {
            for (long row = 0; row < rows; row++)
            {
                Memory.copy(null, src + row * code[STRIDE], null, dst + row * to.code[STRIDE], rowBytes);
            }
        }
        return true;
    }

    /**
     * Copies bytes [packedOffset, packedOffset + lengthBytes) of the packed stream of {@code count} instances at
     * {@code srcAddress} into the same bytes of the packed stream of {@code toCount} instances of {@code to} at
     * {@code dstAddress}: what a pack followed by an unpack does, without a packed copy of the range (a contiguous side
     * is one pack or unpack; otherwise 64 KiB at a time through a buffer of the calling thread that stays in its
     * cache). The typed buffers must not overlap.
     *
     * @param srcAddress   address of the source's typed buffer (where displacement 0 is).
     * @param count        instances in the source buffer, >= 0.
     * @param packedOffset first packed byte, >= 0.
     * @param lengthBytes  bytes, within the packed stream of both sides.
     * @param to           the destination's type.
     * @param dstAddress   address of the destination's typed buffer (where displacement 0 is).
     * @param toCount      instances in the destination buffer, >= 0.
     */
    public void transcode(final long srcAddress, final long count, final long packedOffset, final long lengthBytes,
        final CompiledType to, final long dstAddress, final long toCount)
    {
        checkRange(count, packedOffset, lengthBytes);
        to.checkRange(toCount, packedOffset, lengthBytes);
        if (lengthBytes == 0)
        {
            return;
        }
        if (contiguous)
        {
            to.unpack(srcAddress + code[OFFSET] + packedOffset, toCount, packedOffset, lengthBytes, dstAddress);
        }
        else if (to.contiguous)
        {
            pack(srcAddress, count, packedOffset, lengthBytes, dstAddress + to.code[OFFSET] + packedOffset);
        }
        else
        {
            LayoutCopy.copy(this, srcAddress, count, packedOffset, lengthBytes, to, dstAddress, toCount);
        }
    }

    private boolean isRows()
    {
        return nodeCount == 2 && code[KIND] == KIND_VECTOR && code[CHILD] == 1 &&
            code[NODE_LONGS + KIND] == KIND_BLOCK;
    }

    /**
     * Packs bytes [packedOffset, packedOffset + lengthBytes) of the packed stream of {@code count} instances at
     * {@code srcAddress} into {@code lengthBytes} bytes at {@code dstAddress}.
     *
     * @param srcAddress   address of the typed buffer (where displacement 0 is).
     * @param count        instances in the typed buffer, >= 0.
     * @param packedOffset first packed byte, >= 0.
     * @param lengthBytes  bytes, with packedOffset + lengthBytes <= count * size().
     * @param dstAddress   address the packed bytes go to.
     */
    public void pack(final long srcAddress, final long count, final long packedOffset, final long lengthBytes,
        final long dstAddress)
    {
        transfer(null, srcAddress, count, packedOffset, lengthBytes, null, dstAddress, true);
    }

    /**
     * Unpacks {@code lengthBytes} bytes at {@code srcPackedAddress}, which are bytes [packedOffset, packedOffset
     * + lengthBytes) of the packed stream of {@code count} instances, into the typed buffer at
     * {@code dstAddress}.
     *
     * @param srcPackedAddress address of the packed bytes.
     * @param count            instances in the typed buffer, >= 0.
     * @param packedOffset     first packed byte, >= 0.
     * @param lengthBytes      bytes, with packedOffset + lengthBytes <= count * size().
     * @param dstAddress       address of the typed buffer (where displacement 0 is).
     */
    public void unpack(final long srcPackedAddress, final long count, final long packedOffset,
        final long lengthBytes, final long dstAddress)
    {
        transfer(null, dstAddress, count, packedOffset, lengthBytes, null,
            srcPackedAddress, false);
    }

    /**
     * {@link #pack(long, long, long, long, long)} between byte arrays, with bounds checks.
     *
     * @param src          typed buffer; displacement 0 is at {@code srcIndex}.
     * @param srcIndex     index of displacement 0.
     * @param count        instances, >= 0.
     * @param packedOffset first packed byte.
     * @param lengthBytes  bytes to pack.
     * @param dst          packed buffer.
     * @param dstIndex     index the first packed byte goes to.
     */
    public void pack(final byte[] src, final int srcIndex, final long count, final long packedOffset,
        final long lengthBytes, final byte[] dst, final int dstIndex)
    {
        checkTyped(src.length, srcIndex, count, lengthBytes, "source");
        checkPacked(dst.length, dstIndex, lengthBytes, "destination");
        transfer(src, Memory.BYTE_ARRAY_BASE_OFFSET + srcIndex, count, packedOffset, lengthBytes, dst,
            Memory.BYTE_ARRAY_BASE_OFFSET + dstIndex, true);
    }

    /**
     * {@link #unpack(long, long, long, long, long)} between byte arrays, with bounds checks.
     *
     * @param src          packed buffer.
     * @param srcIndex     index of the first packed byte.
     * @param count        instances, >= 0.
     * @param packedOffset packed offset of the first byte.
     * @param lengthBytes  bytes to unpack.
     * @param dst          typed buffer; displacement 0 is at {@code dstIndex}.
     * @param dstIndex     index of displacement 0.
     */
    public void unpack(final byte[] src, final int srcIndex, final long count, final long packedOffset,
        final long lengthBytes, final byte[] dst, final int dstIndex)
    {
        checkPacked(src.length, srcIndex, lengthBytes, "source");
        checkTyped(dst.length, dstIndex, count, lengthBytes, "destination");
        transfer(dst, Memory.BYTE_ARRAY_BASE_OFFSET + dstIndex, count, packedOffset, lengthBytes, src,
            Memory.BYTE_ARRAY_BASE_OFFSET + srcIndex, false);
    }

    /**
     * Packs from a ByteBuffer (direct or with an accessible array) into another, with bounds checks against their
     * capacities; positions and limits are ignored and unchanged.
     *
     * @param src          typed buffer; displacement 0 is at {@code srcIndex}.
     * @param srcIndex     index of displacement 0.
     * @param count        instances, >= 0.
     * @param packedOffset first packed byte.
     * @param lengthBytes  bytes to pack.
     * @param dst          packed buffer.
     * @param dstIndex     index the first packed byte goes to.
     */
    public void pack(final ByteBuffer src, final int srcIndex, final long count, final long packedOffset,
        final long lengthBytes, final ByteBuffer dst, final int dstIndex)
    {
        checkTyped(src.capacity(), srcIndex, count, lengthBytes, "source");
        checkPacked(dst.capacity(), dstIndex, lengthBytes, "destination");
        writable(dst, "destination");
        transfer(base(src), address(src, srcIndex), count, packedOffset, lengthBytes, base(dst),
            address(dst, dstIndex), true);
    }

    /**
     * Unpacks from one ByteBuffer into another, with bounds checks against their capacities.
     *
     * @param src          packed buffer.
     * @param srcIndex     index of the first packed byte.
     * @param count        instances, >= 0.
     * @param packedOffset packed offset of the first byte.
     * @param lengthBytes  bytes to unpack.
     * @param dst          typed buffer; displacement 0 is at {@code dstIndex}.
     * @param dstIndex     index of displacement 0.
     */
    public void unpack(final ByteBuffer src, final int srcIndex, final long count, final long packedOffset,
        final long lengthBytes, final ByteBuffer dst, final int dstIndex)
    {
        checkPacked(src.capacity(), srcIndex, lengthBytes, "source");
        checkTyped(dst.capacity(), dstIndex, count, lengthBytes, "destination");
        writable(dst, "destination");
        transfer(base(dst), address(dst, dstIndex), count, packedOffset, lengthBytes, base(src),
            address(src, srcIndex), false);
    }

    /**
     * Packs from an Agrona buffer into another, with bounds checks against their capacities.
     *
     * @param src          typed buffer; displacement 0 is at {@code srcIndex}.
     * @param srcIndex     index of displacement 0.
     * @param count        instances, >= 0.
     * @param packedOffset first packed byte.
     * @param lengthBytes  bytes to pack.
     * @param dst          packed buffer.
     * @param dstIndex     index the first packed byte goes to.
     */
    public void pack(final DirectBuffer src, final int srcIndex, final long count, final long packedOffset,
        final long lengthBytes, final MutableDirectBuffer dst, final int dstIndex)
    {
        checkTyped(src.capacity(), srcIndex, count, lengthBytes, "source");
        checkPacked(dst.capacity(), dstIndex, lengthBytes, "destination");
        transfer(src.byteArray(), src.addressOffset() + srcIndex, count, packedOffset, lengthBytes,
            dst.byteArray(), dst.addressOffset() + dstIndex, true);
    }

    /**
     * Unpacks from an Agrona buffer into another, with bounds checks against their capacities.
     *
     * @param src          packed buffer.
     * @param srcIndex     index of the first packed byte.
     * @param count        instances, >= 0.
     * @param packedOffset packed offset of the first byte.
     * @param lengthBytes  bytes to unpack.
     * @param dst          typed buffer; displacement 0 is at {@code dstIndex}.
     * @param dstIndex     index of displacement 0.
     */
    public void unpack(final DirectBuffer src, final int srcIndex, final long count, final long packedOffset,
        final long lengthBytes, final MutableDirectBuffer dst, final int dstIndex)
    {
        checkPacked(src.capacity(), srcIndex, lengthBytes, "source");
        checkTyped(dst.capacity(), dstIndex, count, lengthBytes, "destination");
        transfer(dst.byteArray(), dst.addressOffset() + dstIndex, count, packedOffset, lengthBytes,
            src.byteArray(), src.addressOffset() + srcIndex, false);
    }

    /**
     * @param count instances, >= 0.
     * @return lowest byte, relative to displacement 0, that the data of {@code count} instances touches (0 if
     * none): what a typed buffer must hold below its base.
     */
    public long dataLowBytes(final long count)
    {
        if (count <= 0 || size == 0)
        {
            return 0;
        }
        final long span = Checked.multiply(count - 1, extent, "data span of " + count + " instances", ErrorClass.COUNT);
        return Checked.add(Math.min(0, span), trueLb, "data span of " + count + " instances", ErrorClass.COUNT);
    }

    /**
     * @param count instances, >= 0.
     * @return one past the highest byte, relative to displacement 0, that the data of {@code count} instances
     * touches (0 if none).
     */
    public long dataHighBytes(final long count)
    {
        if (count <= 0 || size == 0)
        {
            return 0;
        }
        final long span = Checked.multiply(count - 1, extent, "data span of " + count + " instances", ErrorClass.COUNT);
        return Checked.add(Math.max(0, span), trueUb, "data span of " + count + " instances", ErrorClass.COUNT);
    }

    public String toString()
    {
        return "CompiledType{" + name + ", nodes=" + nodeCount + "}";
    }

    void transfer(final Object typedBase, final long typedAddress, final long count,
        final long packedOffset, final long lengthBytes, final Object packedBase, final long packedAddress,
        final boolean pack)
    {
        checkRange(count, packedOffset, lengthBytes);
        if (lengthBytes == 0)
        {
            return;
        }
        if (contiguous)
        {
            final long typed = typedAddress + code[OFFSET] + packedOffset;
            if (pack)
            {
                Memory.copy(typedBase, typed, packedBase, packedAddress, lengthBytes);
            }
            else
            {
                Memory.copy(packedBase, packedAddress, typedBase, typed, lengthBytes);
            }
            return;
        }
        Packer.transfer(code, extent, packedOffset, packedOffset + lengthBytes, typedBase, typedAddress,
            packedBase, packedAddress, pack);
    }

    private void checkRange(final long count, final long packedOffset, final long lengthBytes)
    {
        if (count < 0)
        {
            throw new IllegalArgumentException("count must be >= 0, was " + count);
        }
        if (packedOffset < 0 || lengthBytes < 0)
        {
            throw new IllegalArgumentException("packed range [" + packedOffset + ", +" + lengthBytes +
                ") has a negative offset or length");
        }
        final long total = Checked.multiply(count, size, "packed size of " + count + " instances", ErrorClass.COUNT);
        if (packedOffset > total || lengthBytes > total - packedOffset)
        {
            throw new IllegalArgumentException("packed range [" + packedOffset + ", " +
                (packedOffset + lengthBytes) + ") exceeds the " + total + " packed bytes of " + count + " x " + name);
        }
    }

    private void checkTyped(final long capacity, final long index, final long count, final long lengthBytes,
        final String which)
    {
        if (lengthBytes == 0)
        {
            return;
        }
        final long low = index + dataLowBytes(count);
        final long high = index + dataHighBytes(count);
        if (low < 0 || high > capacity)
        {
            throw new IndexOutOfBoundsException(which + " buffer of " + capacity + " bytes with displacement 0 at " +
                "index " + index + " cannot hold " + count + " x " + name + ": its data spans bytes [" + low + ", " +
                high + ")");
        }
    }

    private static void checkPacked(final long capacity, final long index, final long lengthBytes,
        final String which)
    {
        if (index < 0 || index + lengthBytes > capacity)
        {
            throw new IndexOutOfBoundsException(which + " buffer of " + capacity + " bytes cannot hold " +
                lengthBytes + " packed bytes at index " + index);
        }
    }

    private static void writable(final ByteBuffer buffer, final String which)
    {
        if (buffer.isReadOnly())
        {
            throw new IllegalArgumentException(which + " buffer is read-only");
        }
    }

    private static Object base(final ByteBuffer buffer)
    {
        if (buffer.isDirect())
        {
            return null;
        }
        if (!buffer.hasArray())
        {
            throw new IllegalArgumentException("heap buffer without an accessible array (read-only?) is not " +
                "supported: use a direct buffer");
        }
        return buffer.array();
    }

    private static long address(final ByteBuffer buffer, final int index)
    {
        if (buffer.isDirect())
        {
            return Memory.directAddress(buffer) + index;
        }
        return Memory.BYTE_ARRAY_BASE_OFFSET + buffer.arrayOffset() + index;
    }

    private void describe(final StringBuilder builder, final int index, final int level)
    {
        final int record = index * NODE_LONGS;
        builder.append("  ".repeat(level));
        final long kind = code[record + KIND];
        if (kind == KIND_BLOCK)
        {
            builder.append("BLOCK offset=").append(code[record + OFFSET]).append(" length=")
                .append(code[record + PACKED]).append('\n');
        }
        else if (kind == KIND_VECTOR)
        {
            builder.append("VECTOR offset=").append(code[record + OFFSET]).append(" count=")
                .append(code[record + COUNT]).append(" stride=").append(code[record + STRIDE]).append(" packed=")
                .append(code[record + PACKED]).append('\n');
            describe(builder, (int)code[record + CHILD], level + 1);
        }
        else
        {
            builder.append("SEQUENCE offset=").append(code[record + OFFSET]).append(" children=")
                .append(code[record + COUNT]).append(" packed=").append(code[record + PACKED]).append('\n');
            final int table = (int)code[record + STRIDE];
            for (int j = 0; j < code[record + COUNT]; j++)
            {
                describe(builder, (int)code[table + 2 * j], level + 1);
            }
        }
    }

    String name()
    {
        return name;
    }

    long trueUb()
    {
        return trueUb;
    }

    long[] codeShared()
    {
        return code;
    }

    private static long computeMinBlockBytes(final long[] code, final int nodeCount)
    {
        long min = Long.MAX_VALUE;
        for (int i = 0; i < nodeCount; i++)
        {
            final int record = i * NODE_LONGS;
            if (code[record + KIND] == KIND_BLOCK && code[record + PACKED] > 0)
            {
                min = Math.min(min, code[record + PACKED]);
            }
        }
        return min == Long.MAX_VALUE ? 0 : min;
    }

    private static int computeAlignment(final long[] code, final int nodeCount, final long extent)
    {
        long bits = extent | MAX_ALIGNMENT;
        for (int i = 0; i < nodeCount; i++)
        {
            final int record = i * NODE_LONGS;
            bits |= code[record + OFFSET];
            if (code[record + KIND] == KIND_BLOCK)
            {
                bits |= code[record + PACKED];
            }
            else if (code[record + KIND] == KIND_VECTOR)
            {
                bits |= code[record + STRIDE];
            }
        }
        return (int)Long.lowestOneBit(bits);
    }
}
