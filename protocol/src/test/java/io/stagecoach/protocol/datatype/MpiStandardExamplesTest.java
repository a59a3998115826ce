package io.stagecoach.protocol.datatype;

import java.util.BitSet;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The worked examples of the MPI standard (3.1 chapter 4 / 4.0 chapter 5 and the I/O chapter), with C's char as
 * BYTE.
 */
class MpiStandardExamplesTest
{
    /**
     * The standard's oldtype {(double, 0), (char, 8)} with extent 16.
     */
    private static Datatype doubleThenChar()
    {
        return Datatype.struct(new int[]{ 1, 1 }, new long[]{ 0, 8 }, new Datatype[]{ Datatype.DOUBLE, Datatype.BYTE });
    }

    @Test
    void shouldPadDoubleCharStructToExtent16()
    {
        final Datatype type = doubleThenChar();
        assertEquals(16, type.extent());
        assertEquals(9, type.size());
        assertEquals(9, type.trueExtent());
    }

    @Test
    void shouldBuildContiguousExample()
    {
        assertEquals(List.of("DOUBLE@0", "BYTE@8", "DOUBLE@16", "BYTE@24", "DOUBLE@32", "BYTE@40"),
            TypeMaps.of(Datatype.contiguous(3, doubleThenChar())));
    }

    @Test
    void shouldBuildVectorExample()
    {
        final Datatype type = Datatype.vector(2, 3, 4, doubleThenChar());
        assertEquals(List.of("DOUBLE@0", "BYTE@8", "DOUBLE@16", "BYTE@24", "DOUBLE@32", "BYTE@40",
            "DOUBLE@64", "BYTE@72", "DOUBLE@80", "BYTE@88", "DOUBLE@96", "BYTE@104"), TypeMaps.of(type));
        assertEquals(0, type.lb());
        assertEquals(112, type.ub());
    }

    @Test
    void shouldBuildVectorWithNegativeStrideExample()
    {
        final Datatype type = Datatype.vector(3, 1, -2, doubleThenChar());
        assertEquals(List.of("DOUBLE@0", "BYTE@8", "DOUBLE@-32", "BYTE@-24", "DOUBLE@-64", "BYTE@-56"),
            TypeMaps.of(type));
        assertEquals(-64, type.lb());
        assertEquals(16, type.ub());
        assertEquals(80, type.extent());
        assertEquals(-64, type.trueLb());
        assertEquals(73, type.trueExtent());
    }

    @Test
    void shouldBuildHvectorLikeVectorWithByteStride()
    {
        assertEquals(TypeMaps.of(Datatype.vector(2, 3, 4, doubleThenChar())),
            TypeMaps.of(Datatype.hvector(2, 3, 64, doubleThenChar())));
    }

    @Test
    void shouldBuildIndexedExample()
    {
        final Datatype type = Datatype.indexed(new int[]{ 3, 1 }, new int[]{ 4, 0 }, doubleThenChar());
        assertEquals(List.of("DOUBLE@64", "BYTE@72", "DOUBLE@80", "BYTE@88", "DOUBLE@96", "BYTE@104",
            "DOUBLE@0", "BYTE@8"), TypeMaps.of(type));
        assertEquals(0, type.lb());
        assertEquals(112, type.ub());
    }

    @Test
    void shouldBuildStructExample()
    {
        final Datatype type = Datatype.struct(new int[]{ 2, 1, 3 }, new long[]{ 0, 16, 26 },
            new Datatype[]{ Datatype.FLOAT, doubleThenChar(), Datatype.BYTE });
        assertEquals(List.of("FLOAT@0", "FLOAT@4", "DOUBLE@16", "BYTE@24", "BYTE@26", "BYTE@27", "BYTE@28"),
            TypeMaps.of(type));
        assertEquals(29, type.trueExtent());
        assertEquals(32, type.extent(), "29 bytes padded to the alignment 8 of DOUBLE");
    }

    @Test
    void shouldReplicateResizedIntExample()
    {
        final Datatype type1 = Datatype.INT.resized(-3, 9);
        assertEquals(-3, type1.lb());
        assertEquals(9, type1.extent());
        assertEquals(0, type1.trueLb());
        assertEquals(4, type1.trueExtent());
        final Datatype type2 = Datatype.contiguous(2, type1);
        assertEquals(List.of("INT@0", "INT@9"), TypeMaps.of(type2));
        assertEquals(-3, type2.lb());
        assertEquals(15, type2.ub());
        assertEquals(18, type2.extent());
        assertEquals(13, type2.trueExtent());
    }

    @Test
    void shouldDistributeColumnBlocksWithSubarrayLikeTheIoChapter()
    {
        final int[] gsizes = { 100, 100 };
        final BitSet covered = new BitSet(100 * 100);
        for (int rank = 0; rank < 4; rank++)
        {
            final Datatype type = Datatype.subarray(gsizes, new int[]{ 100, 25 }, new int[]{ 0, rank * 25 },
                Order.FORTRAN, Datatype.DOUBLE).commit();
            assertEquals(0, type.lb());
            assertEquals(100 * 100 * 8, type.extent());
            assertEquals(100 * 25 * 8, type.size());
            assertEquals(rank * 25 * 100 * 8, type.trueLb());
            assertEquals(1, type.compiled().nodeCount(), "25 whole Fortran columns are one block");
            type.compiled().forEachSegment(1, 0, type.size(), (d, p, l) -> covered.set((int)d / 8, (int)(d + l) / 8));
        }
        assertEquals(100 * 100, covered.cardinality());
    }

    @Test
    void shouldDistributeHpfCyclicNoneBlockExampleOverSixProcesses()
    {
        final int[] gsizes = { 100, 200, 300 };
        final Distribution[] distributions = { Distribution.CYCLIC, Distribution.NONE, Distribution.BLOCK };
        final int[] dargs = { 10, Datatype.DISTRIBUTE_DFLT_DARG, Datatype.DISTRIBUTE_DFLT_DARG };
        final int[] psizes = { 2, 1, 3 };
        final BitSet covered = new BitSet(100 * 200 * 300);
        for (int rank = 0; rank < 6; rank++)
        {
            final int c0 = rank / 3;
            final int c2 = rank % 3;
            final Datatype type = Datatype.darray(6, rank, gsizes, distributions, dargs, psizes, Order.FORTRAN,
                Datatype.FLOAT).commit();
            assertEquals(0, type.lb());
            assertEquals(100L * 200 * 300 * 4, type.extent());
            assertEquals(50L * 200 * 100, type.elementCount());
            assertTrue(type.compiled().nodeCount() <= 4, type.compiled().describe());
            type.compiled().forEachSegment(1, 0, type.size(), (d, p, l) ->
            {
                for (long e = d / 4; e < (d + l) / 4; e++)
                {
                    final long i = e % 100;
                    final long k = e / (100 * 200);
                    assertEquals(c0, (i / 10) % 2, "element " + e);
                    assertEquals(c2, k / 100, "element " + e);
                    assertTrue(!covered.get((int)e), "element " + e + " owned twice");
                    covered.set((int)e);
                }
            });
        }
        assertEquals(100 * 200 * 300, covered.cardinality());
    }

    @Test
    void shouldMatchBlockBlockDarrayOf100By100WithSubarrays()
    {
        final int[] gsizes = { 100, 100 };
        for (int rank = 0; rank < 4; rank++)
        {
            final Datatype darray = Datatype.darray(4, rank, gsizes,
                new Distribution[]{ Distribution.BLOCK, Distribution.BLOCK },
                new int[]{ Datatype.DISTRIBUTE_DFLT_DARG, Datatype.DISTRIBUTE_DFLT_DARG }, new int[]{ 2, 2 },
                Order.C, Datatype.DOUBLE).commit();
            final Datatype subarray = Datatype.subarray(gsizes, new int[]{ 50, 50 },
                new int[]{ rank / 2 * 50, rank % 2 * 50 }, Order.C, Datatype.DOUBLE).commit();
            assertEquals(subarray.extent(), darray.extent());
            assertEquals(subarray.lb(), darray.lb());
            assertEquals(subarray.trueLb(), darray.trueLb());
            assertEquals(subarray.signature(), darray.signature());
            assertEquals(subarray.compiled().describe().lines().skip(1).toList(),
                darray.compiled().describe().lines().skip(1).toList());
        }
    }
}
