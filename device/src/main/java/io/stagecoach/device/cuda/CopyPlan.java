package io.stagecoach.device.cuda;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;

/**
 * The choice of kernel and its arguments for one copy between two layouts, pack and unpack fused, mirroring
 * {@code CopyArgs} of stagecoach_kernels.cu: packed unit P of the source's layout goes straight to packed unit P of the
 * destination's. A layout is nd where it is regular with up to three dimensions outside its run (the count of
 * instances included, contiguous neighbours merged, as {@link KernelPlan} finds them). Where both are, the nd form
 * splits P by each side's mixed radix, each side padded to three dimensions with dimensions of count 1 inside its own;
 * where one is, the mixed form splits P by that side's mixed radix (32-bit indices) and descends the other side's node
 * tree; otherwise, or where the mixed form's nd side would need 64-bit indices, the tree form descends both trees. The
 * unit is the largest power of two up to 16 that divides every offset, stride and run of both layouts, both addresses
 * and the byte range, so that no unit crosses the end of a run on either side.
 */
final class CopyPlan implements LaunchPlan
{
    static final int ARGUMENT_BYTES = 248;
    static final int LAYOUT_BYTES = 104;
    private static final int DIMENSIONS = 3;

    /**
     * One side of a copy.
     *
     * @param shape       of its datatype.
     * @param address     device address of its typed buffer (displacement 0).
     * @param count       instances in the buffer.
     * @param codeAddress device address of its datatype's node code (used by the tree form).
     */
    record Side(TypeShape shape, long address, long count, long codeAddress)
    {
    }

    /** The arguments of one side, as the kernels' {@code Layout} holds them. */
    static final class Layout
    {
        long base;
        long code;
        long size;
        long extent;
        final long[] strides = new long[DIMENSIONS];
        long run = 1;
        long n1 = 1;
        long n2 = 1;
    }

    /** Both sides descend their trees (the first unit is then counted in bytes). */
    final boolean tree;
    /** The source side descends its tree. */
    final boolean sourceTree;
    /** The destination side descends its tree. */
    final boolean destinationTree;
    final boolean wide;
    final int unit;
    final String kernel;
    final long first;
    final long units;
    final long ilp;
    final long blocks;
    final long signal;
    final long blocksDone;
    final Layout source = new Layout();
    final Layout destination = new Layout();

    private CopyPlan(final Side from, final Side to, final long packedOffset, final long lengthBytes,
        final long signalAddress, final long counterAddress)
    {
        final List<long[]> fromDimensions = ndDimensions(from);
        final List<long[]> toDimensions = ndDimensions(to);
        final boolean mixed = (fromDimensions == null) != (toDimensions == null) &&
            isNarrowMixed(from, fromDimensions, to, toDimensions, packedOffset, lengthBytes);
        tree = !mixed && (fromDimensions == null || toDimensions == null);
        sourceTree = tree || mixed && fromDimensions == null;
        destinationTree = tree || mixed && toDimensions == null;
        final List<long[]> sourceDimensions = sourceTree ? null : fromDimensions;
        final List<long[]> destinationDimensions = destinationTree ? null : toDimensions;
        unit = KernelPlan.unitOf(packedOffset | lengthBytes | sideBits(from, sourceDimensions) |
            sideBits(to, destinationDimensions));
        fill(source, from, sourceDimensions, unit);
        fill(destination, to, destinationDimensions, unit);
        first = tree ? packedOffset : packedOffset / unit;
        wide = !tree && !mixed &&
            ((packedOffset + lengthBytes) / unit >= KernelPlan.NARROW_LIMIT || isWide(source) || isWide(destination));
        units = lengthBytes / unit;
        final String form = tree ? "tree" : sourceTree ? "treend" : destinationTree ? "ndtree" : wide ? "ndw" : "nd";
        kernel = "sc_copy_" + form + "_u" + unit;
        signal = signalAddress;
        blocksDone = counterAddress;
        final long blocksAtIlp = (units + (long)KernelPlan.THREADS * KernelPlan.ILP - 1) /
            ((long)KernelPlan.THREADS * KernelPlan.ILP);
        ilp = sourceTree || destinationTree || blocksAtIlp < KernelPlan.SPREAD_BLOCKS ? 1 : KernelPlan.ILP;
        final long perBlock = (long)KernelPlan.THREADS * ilp;
        blocks = (units + perBlock - 1) / perBlock;
        if (blocks > Integer.MAX_VALUE)
        {
            throw new IllegalArgumentException("copy of " + units + " units needs " + blocks + " blocks, more than " +
                Integer.MAX_VALUE);
        }
    }

    /**
     * @param from         the source.
     * @param to           the destination.
     * @param packedOffset first byte of the packed stream moved.
     * @param lengthBytes  bytes moved, greater than zero, within both packed streams.
     * @param signalAddress  device address of the completion word, 0 for none (bit 0: fence system-wide).
     * @param counterAddress device address of the zeroed counter of finished blocks, used with the signal.
     * @return the plan.
     */
    static CopyPlan of(final Side from, final Side to, final long packedOffset, final long lengthBytes,
        final long signalAddress, final long counterAddress)
    {
        return new CopyPlan(from, to, packedOffset, lengthBytes, signalAddress, counterAddress);
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
        writeLayout(buffer, 0, source);
        writeLayout(buffer, LAYOUT_BYTES, destination);
        buffer.putLong(208, first);
        buffer.putLong(216, units);
        buffer.putLong(224, signal);
        buffer.putLong(232, blocksDone);
        buffer.putLong(240, ilp);
    }

    @Override
    public String toString()
    {
        return kernel + "<<<" + blocks + ", " + KernelPlan.THREADS + ">>>(units=" + units + ", ilp=" + ilp +
            ", first=" + first + ", source " + describe(source) + ", destination " + describe(destination) + ")";
    }

    private static List<long[]> ndDimensions(final Side side)
    {
        if (!side.shape().isRegular())
        {
            return null;
        }
        final List<long[]> dimensions = KernelPlan.dimensions(side.shape(), side.count());
        return dimensions.size() <= DIMENSIONS + 1 ? dimensions : null;
    }

    /**
     * @return whether the mixed form can run: its nd side's runs, dimensions and the range's units in 32 bits.
     */
    private static boolean isNarrowMixed(final Side from, final List<long[]> fromDimensions, final Side to,
        final List<long[]> toDimensions, final long packedOffset, final long lengthBytes)
    {
        final int unit = KernelPlan.unitOf(packedOffset | lengthBytes | sideBits(from, fromDimensions) |
            sideBits(to, toDimensions));
        final Layout nd = new Layout();
        fill(nd, fromDimensions != null ? from : to, fromDimensions != null ? fromDimensions : toDimensions, unit);
        return (packedOffset + lengthBytes) / unit < KernelPlan.NARROW_LIMIT && !isWide(nd);
    }

    /**
     * @return the bits a side's unit must divide: by its tree (alignment and address) where it has no dimensions.
     */
    private static long sideBits(final Side side, final List<long[]> dimensions)
    {
        return dimensions == null ? side.shape().alignment() | side.address() : ndBits(side, dimensions);
    }

    private static void fill(final Layout layout, final Side side, final List<long[]> dimensions, final int unit)
    {
        if (dimensions == null)
        {
            treeLayout(layout, side);
        }
        else
        {
            ndLayout(layout, side, dimensions, unit);
        }
    }

    private static long ndBits(final Side side, final List<long[]> dimensions)
    {
        long bits = (side.address() + side.shape().displacementBytes()) | dimensions.get(0)[0];
        for (int i = 1; i < dimensions.size(); i++)
        {
            bits |= dimensions.get(i)[1];
        }
        return bits;
    }

    /**
     * Fills the layout of a regular side; its dimensions outside the run take the outermost of the three places, so
     * that those inside, of count 1, leave the quotient of the outermost unchanged.
     */
    private static void ndLayout(final Layout layout, final Side side, final List<long[]> dimensions, final int unit)
    {
        layout.base = side.address() + side.shape().displacementBytes();
        layout.code = side.codeAddress();
        layout.size = side.shape().sizeBytes();
        layout.extent = side.shape().extentBytes();
        layout.run = dimensions.get(0)[0] / unit;
        final int outside = dimensions.size() - 1;
        for (int i = 0; i < outside; i++)
        {
            final int place = DIMENSIONS - outside + i;
            layout.strides[place] = dimensions.get(i + 1)[1];
            if (place == 0)
            {
                layout.n1 = dimensions.get(i + 1)[0];
            }
            else if (place == 1)
            {
                layout.n2 = dimensions.get(i + 1)[0];
            }
        }
    }

    private static void treeLayout(final Layout layout, final Side side)
    {
        layout.base = side.address();
        layout.code = side.codeAddress();
        layout.size = side.shape().sizeBytes();
        layout.extent = side.shape().extentBytes();
    }

    private static boolean isWide(final Layout layout)
    {
        return layout.run >= KernelPlan.NARROW_LIMIT || layout.n1 >= KernelPlan.NARROW_LIMIT ||
            layout.n2 >= KernelPlan.NARROW_LIMIT;
    }

    private static void writeLayout(final ByteBuffer buffer, final int offset, final Layout layout)
    {
        buffer.putLong(offset, layout.base);
        buffer.putLong(offset + 8, layout.code);
        buffer.putLong(offset + 16, layout.size);
        buffer.putLong(offset + 24, layout.extent);
        buffer.putLong(offset + 32, layout.strides[0]);
        buffer.putLong(offset + 40, layout.strides[1]);
        buffer.putLong(offset + 48, layout.strides[2]);
        buffer.putLong(offset + 56, layout.run);
        buffer.putLong(offset + 64, layout.n1);
        buffer.putLong(offset + 72, layout.n2);
        KernelPlan.putDivisor(buffer, offset + 80, layout.run);
        KernelPlan.putDivisor(buffer, offset + 88, layout.n1);
        KernelPlan.putDivisor(buffer, offset + 96, layout.n2);
    }

    private static String describe(final Layout layout)
    {
        return "run=" + layout.run + " n1=" + layout.n1 + " n2=" + layout.n2 + " strides=" + layout.strides[0] + "/" +
            layout.strides[1] + "/" + layout.strides[2];
    }
}
