package io.stagecoach.device.cuda;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * The choice of kernel and its arguments for one pack or unpack call, mirroring {@code PackArgs} of
 * stagecoach_kernels.cu. A regular datatype (a run repeated over VECTORs) merges contiguous dimensions, the count of
 * instances included; up to three dimensions outside the run take an nd kernel, anything else the tree kernel. The
 * unit is the largest power of two up to 16 that divides every offset, stride, run, address and the byte range.
 * With a signal address, the last block of the launch stores 1 there once every block's writes are visible.
 */
final class KernelPlan implements LaunchPlan
{
    static final int THREADS = 256;
    static final int ILP = 4;
    static final int ARGUMENT_BYTES = 152;
    /**
     * Blocks below which an nd range moves one unit per thread instead of {@link #ILP}: a halo face of 16-64 Ki
     * units then spreads over 64-256 blocks, most of the H200's 132 multiprocessors, instead of 16-64.
     */
    static final long SPREAD_BLOCKS = 128;
    static final int MAX_UNIT = 16;
    static final long NARROW_LIMIT = 1L << 32;

    final boolean tree;
    final int dims;
    final boolean wide;
    final int unit;
    final String kernel;
    final long blocks;
    /** Units per thread of an nd kernel: {@link #ILP}, or 1 for a range of fewer than {@link #SPREAD_BLOCKS} blocks. */
    final long ilp;
    final long typed;
    final long packed;
    final long code;
    final long first;
    final long units;
    final long size;
    final long extent;
    final long stride1;
    final long stride2;
    final long stride3;
    final long run;
    final long n1;
    final long n2;
    final long signal;
    final long blocksDone;

    private KernelPlan(final Builder b)
    {
        tree = b.tree;
        dims = b.dims;
        wide = b.wide;
        unit = b.unit;
        kernel = (b.pack ? "sc_pack_" : "sc_unpack_") + (tree ? "tree" : "nd" + dims + (wide ? "w" : "")) + "_u" + unit;
        typed = b.typed;
        packed = b.packed;
        code = b.code;
        first = b.first;
        units = b.units;
        size = b.size;
        extent = b.extent;
        stride1 = b.strides[0];
        stride2 = b.strides[1];
        stride3 = b.strides[2];
        run = b.run;
        n1 = b.n1;
        n2 = b.n2;
        signal = b.signal;
        blocksDone = b.blocksDone;
        final long blocksAtIlp = (units + (long)THREADS * ILP - 1) / ((long)THREADS * ILP);
        ilp = tree || blocksAtIlp < SPREAD_BLOCKS ? 1 : ILP;
        final long perBlock = (long)THREADS * ilp;
        blocks = (units + perBlock - 1) / perBlock;
        if (blocks > Integer.MAX_VALUE)
        {
            throw new IllegalArgumentException("range of " + units + " units needs " + blocks + " blocks, more than " +
                Integer.MAX_VALUE);
        }
    }

    /**
     * @param shape         of the datatype.
     * @param pack          true to pack, false to unpack.
     * @param typedAddress  device address of the typed buffer.
     * @param count         instances in the typed buffer.
     * @param packedOffset  first byte of the packed stream moved.
     * @param lengthBytes   bytes moved, greater than zero.
     * @param packedAddress device address of packed byte {@code packedOffset}.
     * @param codeAddress   device address of the uploaded node code (used by the tree kernel).
     * @return the plan.
     */
    static KernelPlan of(
        final TypeShape shape,
        final boolean pack,
        final long typedAddress,
        final long count,
        final long packedOffset,
        final long lengthBytes,
        final long packedAddress,
        final long codeAddress)
    {
        return of(shape, pack, typedAddress, count, packedOffset, lengthBytes, packedAddress, codeAddress, 0, 0);
    }

    /**
     * As {@link #of(TypeShape, boolean, long, long, long, long, long, long)}, with the kernel signalling completion.
     *
     * @param shape          of the datatype.
     * @param pack           true to pack, false to unpack.
     * @param typedAddress   device address of the typed buffer.
     * @param count          instances in the typed buffer.
     * @param packedOffset   first byte of the packed stream moved.
     * @param lengthBytes    bytes moved, greater than zero.
     * @param packedAddress  device address of packed byte {@code packedOffset}.
     * @param codeAddress    device address of the uploaded node code (used by the tree kernel).
     * @param signalAddress  device address of the 8-byte word the last block sets to 1, or 0 for none.
     * @param counterAddress device address of a 4-byte zeroed counter of finished blocks, used with the signal.
     * @return the plan.
     */
    static KernelPlan of(
        final TypeShape shape,
        final boolean pack,
        final long typedAddress,
        final long count,
        final long packedOffset,
        final long lengthBytes,
        final long packedAddress,
        final long codeAddress,
        final long signalAddress,
        final long counterAddress)
    {
        final Builder b = new Builder();
        b.signal = signalAddress;
        b.blocksDone = counterAddress;
        b.pack = pack;
        b.packed = packedAddress;
        b.code = codeAddress;
        b.size = shape.sizeBytes();
        b.extent = shape.extentBytes();
        final List<long[]> dims = shape.isRegular() ? dimensions(shape, count) : null;
        if (dims != null && dims.size() <= 4)
        {
            planNd(b, dims, typedAddress + shape.displacementBytes(), packedOffset, lengthBytes);
        }
        else
        {
            planTree(b, shape, typedAddress, packedOffset, lengthBytes);
        }
        return new KernelPlan(b);
    }

    /**
     * @return the dimensions, innermost first: {run bytes, 1}, then {count, stride bytes}; contiguous neighbours merged.
     */
    static List<long[]> dimensions(final TypeShape shape, final long count)
    {
        final List<long[]> dims = new ArrayList<>();
        dims.add(new long[] {shape.runBytes(), 1});
        final long[] counts = shape.counts();
        final long[] strides = shape.strides();
        for (int i = 0; i < counts.length; i++)
        {
            addDimension(dims, counts[i], strides[i]);
        }
        addDimension(dims, count, shape.extentBytes());
        return dims;
    }

    @Override
    public String kernel()
    {
        return kernel;
    }

    @Override
    public long blocks()
    {
        return blocks;
    }

    @Override
    public int argumentBytes()
    {
        return ARGUMENT_BYTES;
    }

    @Override
    public void writeArguments(final ByteBuffer buffer)
    {
        buffer.order(ByteOrder.LITTLE_ENDIAN);
        buffer.putLong(0, typed);
        buffer.putLong(8, packed);
        buffer.putLong(16, code);
        buffer.putLong(24, first);
        buffer.putLong(32, units);
        buffer.putLong(40, size);
        buffer.putLong(48, extent);
        buffer.putLong(56, stride1);
        buffer.putLong(64, stride2);
        buffer.putLong(72, stride3);
        buffer.putLong(80, run);
        buffer.putLong(88, n1);
        buffer.putLong(96, n2);
        putDivisor(buffer, 104, run);
        putDivisor(buffer, 112, n1);
        putDivisor(buffer, 120, n2);
        buffer.putLong(128, signal);
        buffer.putLong(136, blocksDone);
        buffer.putLong(144, ilp);
    }

    @Override
    public String toString()
    {
        return kernel + "<<<" + blocks + ", " + THREADS + ">>>(units=" + units + ", ilp=" + ilp + ", first=" + first +
            ", run=" + run +
            ", n1=" + n1 + ", n2=" + n2 + ", strides=" + stride1 + "/" + stride2 + "/" + stride3 + ")";
    }

    static void putDivisor(final ByteBuffer buffer, final int offset, final long divisor)
    {
        if (divisor >= 1 && divisor < NARROW_LIMIT)
        {
            final FastDivisor fast = FastDivisor.of(divisor);
            buffer.putInt(offset, fast.multiplier());
            buffer.putInt(offset + 4, fast.shift());
        }
        else
        {
            buffer.putLong(offset, 0);
        }
    }

    private static void addDimension(final List<long[]> dims, final long count, final long stride)
    {
        if (count == 1)
        {
            return;
        }
        final long[] last = dims.get(dims.size() - 1);
        if (stride == last[0] * last[1])
        {
            last[0] *= count;
        }
        else
        {
            dims.add(new long[] {count, stride});
        }
    }

    private static void planNd(
        final Builder b, final List<long[]> dims, final long typedAddress, final long packedOffset, final long length)
    {
        long bits = dims.get(0)[0] | typedAddress | b.packed | packedOffset | length;
        for (int i = 1; i < dims.size(); i++)
        {
            bits |= dims.get(i)[1];
        }
        b.unit = unitOf(bits);
        b.tree = false;
        b.typed = typedAddress;
        b.first = packedOffset / b.unit;
        b.units = length / b.unit;
        b.run = dims.get(0)[0] / b.unit;
        b.dims = Math.max(1, dims.size() - 1);
        for (int i = 1; i < dims.size(); i++)
        {
            b.strides[i - 1] = dims.get(i)[1];
        }
        b.n1 = dims.size() > 2 ? dims.get(1)[0] : 1;
        b.n2 = dims.size() > 3 ? dims.get(2)[0] : 1;
        b.wide = (packedOffset + length) / b.unit >= NARROW_LIMIT ||
            b.run >= NARROW_LIMIT || b.n1 >= NARROW_LIMIT || b.n2 >= NARROW_LIMIT;
    }

    private static void planTree(
        final Builder b, final TypeShape shape, final long typedAddress, final long packedOffset, final long length)
    {
        b.unit = unitOf(shape.alignment() | typedAddress | b.packed | packedOffset | length);
        b.tree = true;
        b.typed = typedAddress;
        b.first = packedOffset;
        b.units = length / b.unit;
        b.run = 1;
        b.n1 = 1;
        b.n2 = 1;
    }

    static int unitOf(final long bits)
    {
        final long lowest = Long.lowestOneBit(bits);
        return lowest == 0 || lowest > MAX_UNIT ? MAX_UNIT : (int)lowest;
    }

    private static final class Builder
    {
        boolean pack;
        boolean tree;
        boolean wide;
        int dims;
        int unit;
        long typed;
        long packed;
        long code;
        long first;
        long units;
        long size;
        long extent;
        final long[] strides = new long[3];
        long run;
        long n1;
        long n2;
        long signal;
        long blocksDone;
    }
}
