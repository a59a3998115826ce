package io.stagecoach.protocol.datatype;

import java.util.ArrayList;
import java.util.List;

/**
 * A naive type map for checking the engine: every basic element as a (displacement, type) pair, plus the explicit
 * lb/ub markers, built by literally copying maps as the MPI definitions of the constructors say. Bounds of a map
 * without markers follow MPI 3.1 section 4.1 on the map itself: the lowest displacement, and the highest end plus
 * the epsilon that rounds the extent up to the largest basic alignment.
 */
final class ReferenceTypeMap
{
    final List<long[]> entries = new ArrayList<>();
    boolean markers;
    long lb;
    long ub;

    static ReferenceTypeMap basic(final BasicType type)
    {
        final ReferenceTypeMap map = new ReferenceTypeMap();
        map.entries.add(new long[]{ 0, type.ordinal() });
        map.ub = type.sizeBytes();
        return map;
    }

    static ReferenceTypeMap empty()
    {
        return new ReferenceTypeMap();
    }

    boolean isVoid()
    {
        return entries.isEmpty() && !markers;
    }

    long extent()
    {
        return ub - lb;
    }

    long size()
    {
        long size = 0;
        for (final long[] entry : entries)
        {
            size += BasicType.of((int)entry[1]).sizeBytes();
        }
        return size;
    }

    long trueLb()
    {
        return entries.stream().mapToLong(e -> e[0]).min().orElse(0);
    }

    long trueUb()
    {
        return entries.stream().mapToLong(e -> e[0] + BasicType.of((int)e[1]).sizeBytes()).max().orElse(0);
    }

    int alignment()
    {
        return entries.stream().mapToInt(e -> BasicType.of((int)e[1]).alignmentBytes()).max().orElse(1);
    }

    /**
     * Builder of a map by concatenating shifted copies.
     */
    static final class Builder
    {
        private final ReferenceTypeMap map = new ReferenceTypeMap();
        private boolean any;
        private long markedLb = Long.MAX_VALUE;
        private long markedUb = Long.MIN_VALUE;

        Builder copy(final ReferenceTypeMap child, final long shiftBytes)
        {
            if (child.isVoid())
            {
                return this;
            }
            any = true;
            for (final long[] entry : child.entries)
            {
                map.entries.add(new long[]{ entry[0] + shiftBytes, entry[1] });
            }
            if (child.markers)
            {
                map.markers = true;
                markedLb = Math.min(markedLb, child.lb + shiftBytes);
                markedUb = Math.max(markedUb, child.ub + shiftBytes);
            }
            return this;
        }

        ReferenceTypeMap build()
        {
            if (!any)
            {
                return map;
            }
            if (map.markers)
            {
                map.lb = markedLb;
                map.ub = markedUb;
                return map;
            }
            map.lb = map.trueLb();
            map.ub = map.trueUb();
            while ((map.ub - map.lb) % map.alignment() != 0)
            {
                map.ub++;
            }
            return map;
        }
    }

    ReferenceTypeMap resized(final long newLb, final long extentBytes)
    {
        final ReferenceTypeMap map = new ReferenceTypeMap();
        map.entries.addAll(entries);
        map.markers = true;
        map.lb = newLb;
        map.ub = newLb + extentBytes;
        return map;
    }

    static ReferenceTypeMap contiguous(final int count, final ReferenceTypeMap old)
    {
        final Builder builder = new Builder();
        for (int i = 0; i < count; i++)
        {
            builder.copy(old, i * old.extent());
        }
        return builder.build();
    }

    static ReferenceTypeMap hvector(final int count, final int blockLength, final long strideBytes,
        final ReferenceTypeMap old)
    {
        final Builder builder = new Builder();
        for (int i = 0; i < count; i++)
        {
            for (int j = 0; j < blockLength; j++)
            {
                builder.copy(old, i * strideBytes + j * old.extent());
            }
        }
        return builder.build();
    }

    static ReferenceTypeMap hindexed(final int[] blockLengths, final long[] displacementsBytes,
        final ReferenceTypeMap old)
    {
        final Builder builder = new Builder();
        for (int i = 0; i < blockLengths.length; i++)
        {
            for (int j = 0; j < blockLengths[i]; j++)
            {
                builder.copy(old, displacementsBytes[i] + j * old.extent());
            }
        }
        return builder.build();
    }

    static ReferenceTypeMap struct(final int[] blockLengths, final long[] displacementsBytes,
        final ReferenceTypeMap[] types)
    {
        final Builder builder = new Builder();
        for (int i = 0; i < blockLengths.length; i++)
        {
            for (int j = 0; j < blockLengths[i]; j++)
            {
                builder.copy(types[i], displacementsBytes[i] + j * types[i].extent());
            }
        }
        return builder.build();
    }

    /**
     * The elements of a full array whose multi-index passes {@code owned}, in memory order, with lb 0 and ub the
     * whole array: the shape of both subarray and darray.
     */
    static ReferenceTypeMap arrayPart(final int[] sizes, final Order order, final ReferenceTypeMap old,
        final java.util.function.Predicate<int[]> owned)
    {
        final int ndims = sizes.length;
        long total = 1;
        for (final int size : sizes)
        {
            total *= size;
        }
        final ReferenceTypeMap map = new ReferenceTypeMap();
        final int[] index = new int[ndims];
        for (long linear = 0; linear < total; linear++)
        {
            long rest = linear;
            for (int step = 0; step < ndims; step++)
            {
                final int dim = order == Order.C ? ndims - 1 - step : step;
                index[dim] = (int)(rest % sizes[dim]);
                rest /= sizes[dim];
            }
            if (owned.test(index))
            {
                for (final long[] entry : old.entries)
                {
                    map.entries.add(new long[]{ entry[0] + linear * old.extent(), entry[1] });
                }
            }
        }
        map.markers = true;
        map.lb = 0;
        map.ub = total * old.extent();
        return map;
    }

    static ReferenceTypeMap subarray(final int[] sizes, final int[] subsizes, final int[] starts,
        final Order order, final ReferenceTypeMap old)
    {
        return arrayPart(sizes, order, old, index ->
        {
            for (int d = 0; d < sizes.length; d++)
            {
                if (index[d] < starts[d] || index[d] >= starts[d] + subsizes[d])
                {
                    return false;
                }
            }
            return true;
        });
    }

    static ReferenceTypeMap darray(final int size, final int rank, final int[] gsizes,
        final Distribution[] distributions, final int[] dargs, final int[] psizes, final Order order,
        final ReferenceTypeMap old)
    {
        final int ndims = gsizes.length;
        final int[] coords = new int[ndims];
        int rest = rank;
        for (int d = ndims - 1; d >= 0; d--)
        {
            coords[d] = rest % psizes[d];
            rest /= psizes[d];
        }
        return arrayPart(gsizes, order, old, index ->
        {
            for (int d = 0; d < ndims; d++)
            {
                if (owner(index[d], gsizes[d], distributions[d], dargs[d], psizes[d]) != coords[d])
                {
                    return false;
                }
            }
            return true;
        });
    }

    static int owner(final int i, final int gsize, final Distribution distribution, final int darg,
        final int psize)
    {
        switch (distribution)
        {
            case NONE:
                return 0;
            case CYCLIC:
                return (i / (darg == Datatype.DISTRIBUTE_DFLT_DARG ? 1 : darg)) % psize;
            default:
                return i / (darg == Datatype.DISTRIBUTE_DFLT_DARG ? (gsize + psize - 1) / psize : darg);
        }
    }

    /**
     * @return the signature hash computed element by element (Horner), independent of the run-length form.
     */
    long signatureHash(final int count)
    {
        long hash = 0;
        for (int i = 0; i < count; i++)
        {
            for (final long[] entry : entries)
            {
                hash = SignatureNode.addMod(SignatureNode.mulMod(hash, SignatureNode.BASE),
                    SignatureNode.symbol(BasicType.of((int)entry[1])));
            }
        }
        return hash;
    }

    /**
     * @return maximal segments {displacement, packedOffset, length} of {@code count} instances, cut to the
     * packed range [from, to).
     */
    List<long[]> segments(final long count, final long from, final long to)
    {
        final List<long[]> segments = new ArrayList<>();
        long packed = 0;
        for (long i = 0; i < count; i++)
        {
            for (final long[] entry : entries)
            {
                final long length = BasicType.of((int)entry[1]).sizeBytes();
                final long cutFrom = Math.max(from, packed);
                final long cutTo = Math.min(to, packed + length);
                if (cutFrom < cutTo)
                {
                    final long displacement = entry[0] + i * extent() + (cutFrom - packed);
                    final long[] last = segments.isEmpty() ? null : segments.get(segments.size() - 1);
                    if (last != null && last[0] + last[2] == displacement)
                    {
                        last[2] += cutTo - cutFrom;
                    }
                    else
                    {
                        segments.add(new long[]{ displacement, cutFrom, cutTo - cutFrom });
                    }
                }
                packed += length;
            }
        }
        return segments;
    }
}
