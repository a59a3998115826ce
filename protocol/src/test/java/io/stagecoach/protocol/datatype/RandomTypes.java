package io.stagecoach.protocol.datatype;

import java.util.Random;

/**
 * Seeded generator of random datatypes, each paired with its {@link ReferenceTypeMap}: nesting of every
 * constructor, negative strides and displacements, resized bounds (negative lb, extents shorter and longer than
 * the data), empty pieces.
 */
final class RandomTypes
{
    static final int MAX_ENTRIES = 1500;

    private static final Datatype[] BASICS = {
        Datatype.BYTE, Datatype.CHAR, Datatype.SHORT, Datatype.INT, Datatype.LONG, Datatype.FLOAT, Datatype.DOUBLE,
        Datatype.BOOLEAN, Datatype.PACKED };

    private final Random random;

    record Generated(Datatype type, ReferenceTypeMap reference)
    {
    }

    RandomTypes(final long seed)
    {
        random = new Random(seed);
    }

    /**
     * @param depth nesting levels of constructors above the basic types.
     */
    Generated next(final int depth)
    {
        for (int attempt = 0; attempt < 10_000; attempt++)
        {
            final Generated generated = build(depth);
            if (generated.reference().entries.size() <= MAX_ENTRIES)
            {
                return generated;
            }
        }
        throw new IllegalStateException("no datatype of depth " + depth + " with at most " + MAX_ENTRIES +
            " elements after 10000 attempts");
    }

    private Generated build(final int depth)
    {
        if (depth == 0)
        {
            final Datatype basic = BASICS[random.nextInt(BASICS.length)];
            return new Generated(basic, ReferenceTypeMap.basic(BasicType.valueOf(basic.toString())));
        }
        final Generated old = next(depth - 1);
        switch (random.nextInt(13))
        {
            case 0:
            {
                final int count = small(4);
                return new Generated(Datatype.contiguous(count, old.type()),
                    ReferenceTypeMap.contiguous(count, old.reference()));
            }
            case 1:
            {
                final int count = small(4);
                final int blockLength = small(3);
                final int stride = random.nextInt(9) - 4;
                return new Generated(Datatype.vector(count, blockLength, stride, old.type()),
                    ReferenceTypeMap.hvector(count, blockLength, stride * old.reference().extent(), old.reference()));
            }
            case 2:
            {
                final int count = small(4);
                final int blockLength = small(3);
                final long stride = random.nextInt(81) - 40;
                return new Generated(Datatype.hvector(count, blockLength, stride, old.type()),
                    ReferenceTypeMap.hvector(count, blockLength, stride, old.reference()));
            }
            case 3:
            {
                final int[] lengths = lengths(small(4) + 1);
                final int[] displacements = displacements(lengths.length, 12);
                return new Generated(Datatype.indexed(lengths, displacements, old.type()),
                    ReferenceTypeMap.hindexed(lengths, scale(displacements, old.reference().extent()),
                    old.reference()));
            }
            case 4:
            {
                final int[] lengths = lengths(small(4) + 1);
                final long[] displacements = byteDisplacements(lengths.length, 64);
                return new Generated(Datatype.hindexed(lengths, displacements, old.type()),
                    ReferenceTypeMap.hindexed(lengths, displacements, old.reference()));
            }
            case 5:
            {
                final int blockLength = small(3);
                final int[] displacements = displacements(small(4) + 1, 12);
                return new Generated(Datatype.indexedBlock(blockLength, displacements, old.type()),
                    ReferenceTypeMap.hindexed(filled(displacements.length, blockLength),
                    scale(displacements, old.reference().extent()), old.reference()));
            }
            case 6:
            {
                final int blockLength = small(3);
                final long[] displacements = byteDisplacements(small(4) + 1, 64);
                return new Generated(Datatype.hindexedBlock(blockLength, displacements, old.type()),
                    ReferenceTypeMap.hindexed(filled(displacements.length, blockLength), displacements,
                    old.reference()));
            }
            case 7:
                return struct(depth, old);
            case 8:
            {
                final long lb = random.nextInt(33) - 16;
                final long extent = random.nextInt(4) == 0 ? old.reference().extent() + random.nextInt(24) :
                    random.nextInt(64);
                return new Generated(old.type().resized(lb, extent), old.reference().resized(lb, extent));
            }
            case 9:
                return new Generated(old.type().dup(), old.reference());
            case 10:
            case 11:
                return subarray(old);
            default:
                return darray(old);
        }
    }

    private Generated struct(final int depth, final Generated first)
    {
        final int n = 1 + random.nextInt(3);
        final int[] lengths = lengths(n);
        final long[] displacements = byteDisplacements(n, 48);
        final Datatype[] types = new Datatype[n];
        final ReferenceTypeMap[] references = new ReferenceTypeMap[n];
        for (int i = 0; i < n; i++)
        {
            final Generated part = i == 0 ? first : next(random.nextInt(depth));
            types[i] = part.type();
            references[i] = part.reference();
        }
        return new Generated(Datatype.struct(lengths, displacements, types),
            ReferenceTypeMap.struct(lengths, displacements, references));
    }

    private Generated subarray(final Generated old)
    {
        final int ndims = 1 + random.nextInt(3);
        final int[] sizes = new int[ndims];
        final int[] subsizes = new int[ndims];
        final int[] starts = new int[ndims];
        for (int d = 0; d < ndims; d++)
        {
            sizes[d] = 1 + random.nextInt(5);
            subsizes[d] = 1 + random.nextInt(sizes[d]);
            starts[d] = random.nextInt(sizes[d] - subsizes[d] + 1);
        }
        final Order order = random.nextBoolean() ? Order.C : Order.FORTRAN;
        return new Generated(Datatype.subarray(sizes, subsizes, starts, order, old.type()),
            ReferenceTypeMap.subarray(sizes, subsizes, starts, order, old.reference()));
    }

    private Generated darray(final Generated old)
    {
        final int ndims = 1 + random.nextInt(3);
        final int[] gsizes = new int[ndims];
        final int[] psizes = new int[ndims];
        final int[] dargs = new int[ndims];
        final Distribution[] distributions = new Distribution[ndims];
        int size = 1;
        for (int d = 0; d < ndims; d++)
        {
            gsizes[d] = 1 + random.nextInt(7);
            distributions[d] = Distribution.values()[random.nextInt(3)];
            psizes[d] = distributions[d] == Distribution.NONE ? 1 : 1 + random.nextInt(3);
            dargs[d] = Datatype.DISTRIBUTE_DFLT_DARG;
            if (distributions[d] == Distribution.CYCLIC && random.nextBoolean())
            {
                dargs[d] = 1 + random.nextInt(3);
            }
            else if (distributions[d] == Distribution.BLOCK && random.nextBoolean())
            {
                dargs[d] = (gsizes[d] + psizes[d] - 1) / psizes[d] + random.nextInt(2);
            }
            size *= psizes[d];
        }
        final int rank = random.nextInt(size);
        final Order order = random.nextBoolean() ? Order.C : Order.FORTRAN;
        return new Generated(Datatype.darray(size, rank, gsizes, distributions, dargs, psizes, order, old.type()),
            ReferenceTypeMap.darray(size, rank, gsizes, distributions, dargs, psizes, order, old.reference()));
    }

    private int small(final int bound)
    {
        return random.nextInt(8) == 0 ? 0 : 1 + random.nextInt(bound);
    }

    private int[] lengths(final int n)
    {
        final int[] lengths = new int[n];
        for (int i = 0; i < n; i++)
        {
            lengths[i] = random.nextInt(6) == 0 ? 0 : 1 + random.nextInt(3);
        }
        return lengths;
    }

    private int[] displacements(final int n, final int range)
    {
        final int[] displacements = new int[n];
        int next = random.nextInt(range) - range / 2;
        for (int i = 0; i < n; i++)
        {
            displacements[i] = random.nextInt(4) == 0 ? random.nextInt(range) - range / 2 : next;
            next = displacements[i] + 1 + random.nextInt(4);
        }
        return displacements;
    }

    private long[] byteDisplacements(final int n, final int range)
    {
        final long[] displacements = new long[n];
        for (int i = 0; i < n; i++)
        {
            displacements[i] = random.nextInt(range) - range / 2;
        }
        return displacements;
    }

    private static long[] scale(final int[] displacements, final long extent)
    {
        final long[] bytes = new long[displacements.length];
        for (int i = 0; i < bytes.length; i++)
        {
            bytes[i] = displacements[i] * extent;
        }
        return bytes;
    }

    private static int[] filled(final int n, final int value)
    {
        final int[] values = new int[n];
        java.util.Arrays.fill(values, value);
        return values;
    }
}
