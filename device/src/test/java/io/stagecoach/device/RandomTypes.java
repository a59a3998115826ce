package io.stagecoach.device;

import java.util.BitSet;
import java.util.SplittableRandom;

import io.stagecoach.protocol.datatype.CompiledType;
import io.stagecoach.protocol.datatype.Datatype;
import io.stagecoach.protocol.datatype.Order;

/**
 * Seeded random derived datatypes for byte-for-byte tests: every constructor, nested up to three levels, negative
 * strides, resized extents, unaligned byte displacements, with packed size and extent kept small. The rank tests use
 * it too, through this module's test jar.
 */
public final class RandomTypes
{
    private static final Datatype[] BASIC = {
        Datatype.BYTE, Datatype.CHAR, Datatype.SHORT, Datatype.INT, Datatype.FLOAT, Datatype.LONG, Datatype.DOUBLE
    };
    private static final Datatype[] BYTES = { Datatype.BYTE };
    private static final long MAX_SIZE = 8192;
    private static final long MAX_EXTENT = 1 << 16;

    private final SplittableRandom random;
    private final Datatype[] basic;

    /**
     * @param seed printed by the caller so that a failure can be replayed.
     */
    public RandomTypes(final long seed)
    {
        this(seed, BASIC);
    }

    private RandomTypes(final long seed, final Datatype[] basic)
    {
        this.random = new SplittableRandom(seed);
        this.basic = basic;
    }

    /**
     * @param seed printed by the caller so that a failure can be replayed.
     * @return a generator of the same layouts built of {@link Datatype#BYTE} alone: any two of its types of one
     * packed size have one type signature, so that a message sent as one is received as the other.
     */
    public static RandomTypes ofBytes(final long seed)
    {
        return new RandomTypes(seed, BYTES);
    }

    /**
     * @return the seed from -Dstagecoach.test.seed, or a fresh one, printed.
     */
    public static long seed(final String what)
    {
        final long seed = Long.getLong("stagecoach.test.seed", System.nanoTime());
        System.out.println(what + ": seed " + seed + " (replay with -Dstagecoach.test.seed=" + seed + ")");
        return seed;
    }

    /**
     * @return a committed random datatype with a non-empty packed size.
     */
    public Datatype next()
    {
        while (true)
        {
            final Datatype type = build(random.nextInt(4)).commit();
            if (type.size() > 0 && type.size() <= MAX_SIZE && Math.abs(type.extent()) <= MAX_EXTENT &&
                type.trueExtent() <= MAX_EXTENT)
            {
                return type;
            }
        }
    }

    /**
     * @param bound exclusive.
     * @return a value in [0, bound).
     */
    public int nextInt(final int bound)
    {
        return random.nextInt(bound);
    }

    /**
     * @param bound exclusive.
     * @return a value in [0, bound).
     */
    public long nextLong(final long bound)
    {
        return random.nextLong(bound);
    }

    /**
     * @param bytes to fill.
     */
    public void nextBytes(final byte[] bytes)
    {
        random.nextBytes(bytes);
    }

    /**
     * @param type  committed.
     * @param count instances.
     * @return true if no byte of the buffer belongs to two packed bytes (then unpack results are well defined).
     */
    public static boolean isNonOverlapping(final CompiledType type, final long count)
    {
        final long low = type.dataLowBytes(count);
        final BitSet touched = new BitSet();
        final boolean[] overlap = {false};
        type.forEachSegment(count, 0, count * type.size(), (displacement, packedOffset, length) ->
        {
            final int from = (int)(displacement - low);
            if (touched.get(from, from + (int)length).cardinality() > 0)
            {
                overlap[0] = true;
            }
            touched.set(from, from + (int)length);
        });
        return !overlap[0];
    }

    private Datatype build(final int depth)
    {
        final Datatype old = depth == 0 ? basic[random.nextInt(basic.length)] : build(depth - 1).commit();
        return switch (random.nextInt(depth == 0 ? 4 : 10))
        {
            case 0 -> Datatype.contiguous(1 + random.nextInt(6), old);
            case 1 -> vector(old);
            case 2 -> hvector(old);
            case 3 -> subarray(old);
            case 4 -> indexed(old);
            case 5 -> hindexed(old);
            case 6 -> indexedBlock(old);
            case 7 -> struct(old);
            case 8 -> resized(old);
            default -> vector(old);
        };
    }

    private Datatype vector(final Datatype old)
    {
        final int blockLength = 1 + random.nextInt(4);
        final int stride = blockLength + random.nextInt(5);
        return Datatype.vector(1 + random.nextInt(8), blockLength, random.nextInt(5) == 0 ? -stride : stride, old);
    }

    private Datatype hvector(final Datatype old)
    {
        final int blockLength = 1 + random.nextInt(3);
        final long span = blockLength * Math.max(old.extent(), old.trueExtent());
        final long gap = random.nextInt(3) == 0 ? random.nextInt(7) : random.nextInt(4) * 4L;
        return Datatype.hvector(1 + random.nextInt(8), blockLength, span + gap, old);
    }

    private Datatype subarray(final Datatype old)
    {
        final int dims = 2 + random.nextInt(2);
        final int[] sizes = new int[dims];
        final int[] subsizes = new int[dims];
        final int[] starts = new int[dims];
        for (int d = 0; d < dims; d++)
        {
            sizes[d] = 1 + random.nextInt(dims == 2 ? 12 : 7);
            subsizes[d] = 1 + random.nextInt(sizes[d]);
            starts[d] = random.nextInt(sizes[d] - subsizes[d] + 1);
        }
        return Datatype.subarray(sizes, subsizes, starts, random.nextBoolean() ? Order.C : Order.FORTRAN, old);
    }

    private Datatype indexed(final Datatype old)
    {
        final int blocks = 1 + random.nextInt(5);
        final int[] lengths = new int[blocks];
        final int[] displacements = new int[blocks];
        int next = random.nextInt(3);
        for (int i = 0; i < blocks; i++)
        {
            lengths[i] = random.nextInt(4);
            displacements[i] = next;
            next += lengths[i] + random.nextInt(3);
        }
        return Datatype.indexed(lengths, displacements, old);
    }

    private Datatype hindexed(final Datatype old)
    {
        final int blocks = 1 + random.nextInt(4);
        final int[] lengths = new int[blocks];
        final long[] displacements = new long[blocks];
        long next = random.nextInt(9);
        final long extent = Math.max(old.extent(), old.trueExtent());
        for (int i = 0; i < blocks; i++)
        {
            lengths[i] = 1 + random.nextInt(3);
            displacements[i] = next;
            next += lengths[i] * extent + random.nextInt(9);
        }
        return Datatype.hindexed(lengths, displacements, old);
    }

    private Datatype indexedBlock(final Datatype old)
    {
        final int blocks = 1 + random.nextInt(5);
        final int blockLength = 1 + random.nextInt(3);
        final int[] displacements = new int[blocks];
        int next = 0;
        for (int i = 0; i < blocks; i++)
        {
            displacements[i] = next;
            next += blockLength + random.nextInt(4);
        }
        return Datatype.indexedBlock(blockLength, displacements, old);
    }

    private Datatype struct(final Datatype old)
    {
        final int fields = 2 + random.nextInt(2);
        final int[] lengths = new int[fields];
        final long[] displacements = new long[fields];
        final Datatype[] types = new Datatype[fields];
        long next = random.nextInt(5);
        for (int i = 0; i < fields; i++)
        {
            types[i] = i == 0 ? old : basic[random.nextInt(basic.length)];
            lengths[i] = 1 + random.nextInt(3);
            displacements[i] = next;
            next += lengths[i] * Math.max(types[i].extent(), types[i].trueExtent()) + random.nextInt(5);
        }
        return Datatype.struct(lengths, displacements, types);
    }

    private Datatype resized(final Datatype old)
    {
        final long lb = old.trueLb() - random.nextInt(9);
        final long extent = old.trueLb() + old.trueExtent() - lb + random.nextInt(17);
        return old.resized(lb, extent);
    }
}
