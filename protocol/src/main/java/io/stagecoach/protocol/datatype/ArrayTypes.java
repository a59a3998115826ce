package io.stagecoach.protocol.datatype;

import java.util.Objects;

import io.stagecoach.protocol.ErrorClass;

/**
 * Subarray and darray, built from hvector, struct, hindexed_block and resized as their MPI definitions prescribe,
 * so that bounds, signature and layout come from the same rules as every other constructor.
 */
final class ArrayTypes
{
    private ArrayTypes()
    {
    }

    static Datatype subarray(final long[] sizes, final long[] subsizes, final long[] starts, final Order order,
        final Datatype oldtype)
    {
        Objects.requireNonNull(order, "subarray order");
        final int ndims = dimensions(sizes, "subarray sizes");
        sameDimensions(ndims, subsizes, "subarray subsizes");
        sameDimensions(ndims, starts, "subarray starts");
        for (int i = 0; i < ndims; i++)
        {
            checkSubarrayDimension(i, sizes[i], subsizes[i], starts[i]);
        }
        final long[] strideBytes = elementStrides(sizes, order, oldtype.extentUnchecked());
        Datatype type = oldtype;
        long shiftBytes = 0;
        for (int step = 0; step < ndims; step++)
        {
            final int dim = order == Order.C ? ndims - 1 - step : step;
            type = Datatype.hvector(subsizes[dim], 1, strideBytes[dim], type);
            shiftBytes = Checked.add(shiftBytes,
                Checked.multiply(starts[dim], strideBytes[dim], "subarray start offset"), "subarray start offset");
        }
        final long extentBytes = Checked.multiply(product(sizes, "subarray sizes"), oldtype.extentUnchecked(),
            "subarray extent");
        type = Datatype.hindexedBlock(1, new long[]{ shiftBytes }, type).resized(0, extentBytes);
        return Datatype.relabel("subarray(sizes=" + Datatype.text(sizes) + ", subsizes=" + Datatype.text(subsizes) +
            ", starts=" + Datatype.text(starts) + ", " + order + ", " + oldtype + ")", type);
    }

    static Datatype darray(final int size, final int rank, final long[] gsizes, final Distribution[] distributions,
        final int[] dargs, final int[] psizes, final Order order, final Datatype oldtype)
    {
        Objects.requireNonNull(order, "darray order");
        final int ndims = dimensions(gsizes, "darray gsizes");
        Objects.requireNonNull(distributions, "darray distributions");
        if (distributions.length != ndims)
        {
            throw new DatatypeException(ErrorClass.ARG,
                "darray: " + distributions.length + " distributions for " + ndims + " dimensions");
        }
        sameDimensions(ndims, dargs, "darray dargs");
        sameDimensions(ndims, psizes, "darray psizes");
        final int[] coords = gridCoordinates(size, rank, gsizes, distributions, dargs, psizes);
        Datatype type = oldtype;
        long childExtentBytes = oldtype.extentUnchecked();
        for (int step = 0; step < ndims; step++)
        {
            final int dim = order == Order.C ? ndims - 1 - step : step;
            type = distribute(dim, gsizes[dim], distributions[dim], dargs[dim], psizes[dim], coords[dim],
                type, childExtentBytes);
            childExtentBytes = Checked.multiply(childExtentBytes, gsizes[dim], "darray extent");
        }
        return Datatype.relabel("darray(size=" + size + ", rank=" + rank + ", gsizes=" + Datatype.text(gsizes) +
            ", distributions=" + java.util.Arrays.toString(distributions) + ", dargs=" + Datatype.text(dargs) +
            ", psizes=" + Datatype.text(psizes) + ", " + order + ", " + oldtype + ")", type);
    }

    /**
     * MPI's cyclic(darg, gsize, r, psize, oldtype): {@code count} blocks of {@code darg} elements (the last one
     * {@code dargLast}) starting at {@code r * darg}, {@code psize * darg} elements apart, with lb 0 and ub
     * {@code gsize * extent}. BLOCK is cyclic with one block per process; NONE is BLOCK on one process.
     */
    private static Datatype distribute(final int dim, final long gsize, final Distribution distribution,
        final int darg, final int psize, final int coord, final Datatype child, final long childExtentBytes)
    {
        final long blockLength = blockLength(dim, gsize, distribution, darg, psize);
        final long processes = distribution == Distribution.NONE ? 1 : psize;
        final long r = distribution == Distribution.NONE ? 0 : coord;
        final long blocks = (gsize - 1) / blockLength + 1;
        long count = blocks / processes;
        if (r < blocks - count * processes)
        {
            count++;
        }
        final long lastCycle = gsize % Checked.multiply(processes, blockLength, "darray cycle");
        long lastBlockLength = lastCycle == 0 ? blockLength : lastCycle - blockLength * r;
        if (lastBlockLength > blockLength || lastBlockLength <= 0)
        {
            lastBlockLength = blockLength;
        }
        final long startBytes = Checked.multiply(r * blockLength, childExtentBytes, "darray displacement");
        final long strideBytes = Checked.multiply(processes * blockLength, childExtentBytes, "darray stride");
        final Datatype body;
        if (count == 0)
        {
            body = Datatype.contiguous(0, child);
        }
        else if (lastBlockLength == blockLength)
        {
            body = Datatype.hindexedBlock(1, new long[]{ startBytes },
                Datatype.hvector(count, blockLength, strideBytes, child));
        }
        else
        {
            final Datatype whole = Datatype.hvector(count - 1, blockLength, strideBytes, child);
            final long lastBytes = Checked.add(startBytes,
                Checked.multiply(count - 1, strideBytes, "darray displacement"), "darray displacement");
            body = Datatype.struct(new long[]{ 1, lastBlockLength }, new long[]{ startBytes, lastBytes },
                new Datatype[]{ whole, child });
        }
        return body.resized(0, Checked.multiply(gsize, childExtentBytes, "darray extent"));
    }

    private static long blockLength(final int dim, final long gsize, final Distribution distribution,
        final int darg, final int psize)
    {
        switch (distribution)
        {
            case NONE:
                return gsize;
            case CYCLIC:
                return darg == Datatype.DISTRIBUTE_DFLT_DARG ? 1 : darg;
            default:
                if (darg == Datatype.DISTRIBUTE_DFLT_DARG)
                {
                    return (gsize - 1) / psize + 1;
                }
                if ((long)darg * psize < gsize)
                {
                    throw new DatatypeException(ErrorClass.ARG,
                        "darray: BLOCK distribution of dimension " + dim + " with darg " +
                        darg + " on " + psize + " processes covers " + (long)darg * psize + " elements, fewer than " +
                        "gsize " + gsize + " (darg * psize must be >= gsize)");
                }
                return darg;
        }
    }

    private static int[] gridCoordinates(final int size, final int rank, final long[] gsizes,
        final Distribution[] distributions, final int[] dargs, final int[] psizes)
    {
        if (size < 1)
        {
            throw new DatatypeException(ErrorClass.ARG, "darray: size must be >= 1, was " + size);
        }
        if (rank < 0 || rank >= size)
        {
            throw new DatatypeException(ErrorClass.ARG, "darray: rank " + rank + " is outside [0, " + size + ")");
        }
        long gridSize = 1;
        for (int i = 0; i < gsizes.length; i++)
        {
            checkDarrayDimension(i, gsizes[i], Objects.requireNonNull(distributions[i], "distribution"), dargs[i],
                psizes[i]);
            gridSize *= psizes[i];
            if (gridSize > size)
            {
                break;
            }
        }
        if (gridSize != size)
        {
            throw new DatatypeException(ErrorClass.ARG, "darray: process grid " + Datatype.text(psizes) + " has " +
                (gridSize > size ? "more than " + size : gridSize) + " processes but size is " + size +
                " (the product of psizes must equal size)");
        }
        final int[] coords = new int[gsizes.length];
        int remaining = rank;
        int procs = size;
        for (int i = 0; i < gsizes.length; i++)
        {
            procs /= psizes[i];
            coords[i] = remaining / procs;
            remaining %= procs;
        }
        return coords;
    }

    private static void checkDarrayDimension(final int dim, final long gsize, final Distribution distribution,
        final int darg, final int psize)
    {
        if (gsize < 1)
        {
            throw new DatatypeException(ErrorClass.ARG, "darray: gsizes[" + dim + "] must be >= 1, was " + gsize);
        }
        if (psize < 1)
        {
            throw new DatatypeException(ErrorClass.ARG, "darray: psizes[" + dim + "] must be >= 1, was " + psize);
        }
        if (darg != Datatype.DISTRIBUTE_DFLT_DARG && darg < 1 && distribution != Distribution.NONE)
        {
            throw new DatatypeException(ErrorClass.ARG,
                "darray: dargs[" + dim + "] must be >= 1 or DISTRIBUTE_DFLT_DARG, was " + darg);
        }
        if (distribution == Distribution.NONE && psize != 1)
        {
            throw new DatatypeException(ErrorClass.ARG,
                "darray: dimension " + dim + " is not distributed (NONE) but psizes[" +
                dim + "] is " + psize + "; it must be 1");
        }
    }

    private static void checkSubarrayDimension(final int dim, final long size, final long subsize, final long start)
    {
        if (size < 1)
        {
            throw new DatatypeException(ErrorClass.ARG, "subarray: sizes[" + dim + "] must be >= 1, was " + size);
        }
        if (subsize < 1 || subsize > size)
        {
            throw new DatatypeException(ErrorClass.ARG,
                "subarray: subsizes[" + dim + "] = " + subsize + " is outside [1, " + size +
                "] (sizes[" + dim + "])");
        }
        if (start < 0)
        {
            throw new DatatypeException(ErrorClass.ARG, "subarray: starts[" + dim + "] = " + start + " is negative; " +
                "it must be in [0, " + (size - subsize) + "] (sizes[" + dim + "] - subsizes[" + dim + "])");
        }
        if (start > size - subsize)
        {
            throw new DatatypeException(ErrorClass.ARG, "subarray: starts[" + dim + "] + subsizes[" + dim + "] = " +
                start + " + " + subsize + " = " + (start + subsize) + " exceeds sizes[" + dim + "] = " + size);
        }
    }

    private static long[] elementStrides(final long[] sizes, final Order order, final long extentBytes)
    {
        final int ndims = sizes.length;
        final long[] strides = new long[ndims];
        long stride = extentBytes;
        for (int step = 0; step < ndims; step++)
        {
            final int dim = order == Order.C ? ndims - 1 - step : step;
            strides[dim] = stride;
            stride = Checked.multiply(stride, sizes[dim], "array stride");
        }
        return strides;
    }

    private static long product(final long[] values, final String what)
    {
        long product = 1;
        for (final long value : values)
        {
            product = Checked.multiply(product, value, what + " product");
        }
        return product;
    }

    private static int dimensions(final long[] values, final String what)
    {
        Objects.requireNonNull(values, what);
        if (values.length < 1)
        {
            throw new DatatypeException(ErrorClass.DIMS, what + " must have at least 1 dimension, has 0");
        }
        return values.length;
    }

    private static void sameDimensions(final int ndims, final int[] values, final String what)
    {
        sameDimensions(ndims, Objects.requireNonNull(values, what).length, what);
    }

    private static void sameDimensions(final int ndims, final long[] values, final String what)
    {
        sameDimensions(ndims, Objects.requireNonNull(values, what).length, what);
    }

    private static void sameDimensions(final int ndims, final int length, final String what)
    {
        if (length != ndims)
        {
            throw new DatatypeException(ErrorClass.ARG, what + " has " + length + " entries for " + ndims +
                " dimensions");
        }
    }
}
