package io.stagecoach.protocol.datatype;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.util.BitSet;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The worked examples of the MPI standard (3.1 chapter 4 / 4.0 chapter 5 and the I/O chapter), with C's char as
 * BYTE and Fortran's REAL as FLOAT. Where the standard gives a type map but no bounds, lb, ub and extent are those
 * its section 4.1 defines for that map: the lowest displacement, and the highest end plus the epsilon that rounds
 * the extent up to the largest alignment (8 for a double).
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
    void shouldGiveCharThenDoubleTheSameExtentAsDoubleThenChar()
    {
        final Datatype type = Datatype.struct(new int[]{ 1, 1 }, new long[]{ 0, 1 },
            new Datatype[]{ Datatype.BYTE, Datatype.DOUBLE });
        assertEquals(16, type.extent(), "9 bytes rounded to the next multiple of 8");
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
    void shouldBuildHvectorExampleWithOverlappingBlocksAndExtent48()
    {
        final Datatype type = Datatype.hvector(2, 3, 4, doubleThenChar());
        assertEquals(List.of("DOUBLE@0", "BYTE@8", "DOUBLE@16", "BYTE@24", "DOUBLE@32", "BYTE@40",
            "DOUBLE@4", "BYTE@12", "DOUBLE@20", "BYTE@28", "DOUBLE@36", "BYTE@44"), TypeMaps.of(type));
        assertEquals(0, type.lb());
        assertEquals(48, type.ub(), "the last char ends at 45, rounded up to a multiple of 8");
        assertEquals(48, type.extent());
        assertEquals(45, type.trueExtent());
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
    void shouldBuildHindexedExample()
    {
        final Datatype type = Datatype.hindexed(new int[]{ 3, 1 }, new long[]{ 4, 0 }, doubleThenChar());
        assertEquals(List.of("DOUBLE@4", "BYTE@12", "DOUBLE@20", "BYTE@28", "DOUBLE@36", "BYTE@44",
            "DOUBLE@0", "BYTE@8"), TypeMaps.of(type));
        assertEquals(0, type.lb());
        assertEquals(48, type.extent(), "the last char ends at 45, rounded up to a multiple of 8");
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
    void shouldMatchEverySendOfFourRealsWithEveryReceive()
    {
        final Datatype type2 = Datatype.contiguous(2, Datatype.FLOAT);
        final Datatype type4 = Datatype.contiguous(4, Datatype.FLOAT);
        final Datatype type22 = Datatype.contiguous(2, type2);
        final TypeSignature[] sends = {
            Datatype.FLOAT.signature(4), type2.signature(2), type22.signature(1), type4.signature(1) };
        for (final TypeSignature send : sends)
        {
            for (final TypeSignature receive : sends)
            {
                assertEquals(receive, send);
            }
        }
    }

    @Test
    void shouldCountWholeTypesAndElementsLikeGetCountAndGetElements()
    {
        final Datatype type2 = Datatype.contiguous(2, Datatype.FLOAT);
        assertEquals(1, type2.countOf(2 * 4));
        assertEquals(2, type2.elementsOf(2 * 4));
        assertEquals(Datatype.UNDEFINED, type2.countOf(3 * 4));
        assertEquals(3, type2.elementsOf(3 * 4));
    }

    @Test
    void shouldSendTheSectionOfA3dArrayWithVectorAndTwoHvectors()
    {
        final FloatBuffer a = fortranArray(100 * 100 * 100);
        final Datatype oneslice = Datatype.vector(9, 1, 2, Datatype.FLOAT);
        final Datatype twoslice = Datatype.hvector(9, 1, 100 * 4, oneslice);
        final Datatype threeslice = Datatype.hvector(9, 1, 100 * 100 * 4, twoslice).commit();
        assertEquals(68, oneslice.extent());
        assertEquals(8 * 400 + 68, twoslice.extent());
        assertEquals(8 * 40_000 + 8 * 400 + 68, threeslice.extent());
        assertEquals(9 * 9 * 9 * 4, threeslice.size());
        final float[] packed = pack(threeslice, 1, a, fortranIndex(100, 100, 1, 3, 2));
        int n = 0;
        for (int k = 2; k <= 10; k++)
        {
            for (int j = 3; j <= 11; j++)
            {
                for (int i = 1; i <= 17; i += 2)
                {
                    assertEquals(fortranIndex(100, 100, i, j, k), packed[n++], "a(" + i + "," + j + "," + k + ")");
                }
            }
        }
    }

    @Test
    void shouldCopyTheStrictlyLowerTriangleWithIndexed()
    {
        final int[] displacements = new int[100];
        final int[] blockLengths = new int[100];
        for (int i = 1; i <= 100; i++)
        {
            displacements[i - 1] = 100 * (i - 1) + i;
            blockLengths[i - 1] = 100 - i;
        }
        final Datatype ltype = Datatype.indexed(blockLengths, displacements, Datatype.FLOAT).commit();
        assertEquals(4950 * 4, ltype.size());
        assertEquals(4, ltype.lb(), "a(2,1)");
        assertEquals(9900 * 4, ltype.ub(), "one past a(100,99)");
        final float[] packed = pack(ltype, 1, fortranArray(100 * 100), 0);
        int n = 0;
        for (int column = 1; column <= 100; column++)
        {
            for (int row = column + 1; row <= 100; row++)
            {
                assertEquals(fortranIndex(100, 1, row, column, 1), packed[n++], "a(" + row + "," + column + ")");
            }
        }
        assertEquals(4950, n);
    }

    @Test
    void shouldTransposeAMatrixWithVectorAndHvector()
    {
        final Datatype row = Datatype.vector(100, 1, 100, Datatype.FLOAT);
        final Datatype xpose = Datatype.hvector(100, 1, 4, row).commit();
        assertEquals(99 * 100 * 4 + 4, row.extent());
        assertEquals(100 * 100 * 4, xpose.extent());
        assertTransposed(pack(xpose, 1, fortranArray(100 * 100), 0));
    }

    @Test
    void shouldTransposeAMatrixWithRowsResizedToOneReal()
    {
        final Datatype row1 = Datatype.vector(100, 1, 100, Datatype.FLOAT).resized(0, 4).commit();
        assertEquals(4, row1.extent());
        assertTransposed(pack(row1, 100, fortranArray(100 * 100), 0));
    }

    @Test
    void shouldGiveTheParticleStructTheSizeOfItsCStruct()
    {
        final Datatype particle = Datatype.struct(new int[]{ 1, 6, 7 }, new long[]{ 0, 8, 56 },
            new Datatype[]{ Datatype.INT, Datatype.DOUBLE, Datatype.BYTE });
        assertEquals(64, particle.extent(), "sizeof(struct Partstruct): int, 4 bytes padding, 6 doubles, 7 chars, 1 " +
            "byte padding");
        assertEquals(63, particle.trueExtent());
        assertEquals(4 + 48 + 7, particle.size());
    }

    @Test
    void shouldSendTheFirstTwoCoordinatesOfAllParticlesEitherWay()
    {
        final Datatype allPairs = Datatype.hvector(1000, 2, 64, Datatype.DOUBLE).commit();
        final Datatype onePair = Datatype.contiguous(2, Datatype.DOUBLE).resized(0, 64).commit();
        assertEquals(allPairs.signature(), onePair.signature(1000));
        final FloatBuffer particles = fortranArray(1000 * 16);
        assertArrayEquals(pack(allPairs, 1, particles, 2), pack(onePair, 1000, particles, 2));
    }

    @Test
    void shouldPackTwoIntsOneAfterTheOtherAndReceiveThemAsTwoInts()
    {
        final ByteBuffer ij = ByteBuffer.allocateDirect(8).order(ByteOrder.nativeOrder()).putInt(0, 17).putInt(4, 42);
        final ByteBuffer buff = ByteBuffer.allocateDirect(1000).order(ByteOrder.nativeOrder());
        final long address = Memory.directAddress(buff);
        long position = 0;
        position = Datatype.INT.pack(Memory.directAddress(ij), 1, address, 1000, position);
        position = Datatype.INT.pack(Memory.directAddress(ij) + 4, 1, address, 1000, position);
        assertEquals(8, position);
        final ByteBuffer a = ByteBuffer.allocateDirect(8).order(ByteOrder.nativeOrder());
        Datatype.INT.unpack(buff.limit((int)position), a, 0, 2);
        assertEquals(17, a.getInt(0));
        assertEquals(42, a.getInt(4));
        assertEquals(Datatype.INT.signature(2), Datatype.contiguous(2, Datatype.INT).signature());
    }

    @Test
    void shouldBoundAPackOfACountAndItsCharactersWithPackSize()
    {
        final long packSize = Datatype.INT.packSize(1) + Datatype.BYTE.packSize(100);
        assertEquals(104, packSize);
        final ByteBuffer lbuf = ByteBuffer.allocateDirect((int)packSize);
        final ByteBuffer text = ByteBuffer.allocateDirect(100);
        final ByteBuffer count = ByteBuffer.allocateDirect(4).order(ByteOrder.nativeOrder()).putInt(0, 100);
        Datatype.INT.pack(count, 0, 1, lbuf);
        Datatype.BYTE.pack(text, 0, 100, lbuf);
        assertEquals(packSize, lbuf.position());
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

    private static void assertTransposed(final float[] packed)
    {
        for (int i = 1; i <= 100; i++)
        {
            for (int j = 1; j <= 100; j++)
            {
                assertEquals(fortranIndex(100, 1, j, i, 1), packed[fortranIndex(100, 1, i, j, 1)],
                    "b(" + i + "," + j + ") = a(" + j + "," + i + ")");
            }
        }
    }

    /**
     * @return a direct buffer of {@code elements} floats, each holding its own index.
     */
    private static FloatBuffer fortranArray(final int elements)
    {
        final FloatBuffer array = ByteBuffer.allocateDirect(elements * 4).order(ByteOrder.nativeOrder())
            .asFloatBuffer();
        for (int e = 0; e < elements; e++)
        {
            array.put(e, e);
        }
        return array;
    }

    /**
     * @return the 0-based index of the 1-based Fortran element (i, j, k) of an array of n1 x n2 x ... elements.
     */
    private static int fortranIndex(final int n1, final int n2, final int i, final int j, final int k)
    {
        return (i - 1) + n1 * ((j - 1) + n2 * (k - 1));
    }

    /**
     * @return the floats of {@code count} instances of {@code type} packed from {@code array} with displacement 0
     * at its float {@code origin}.
     */
    private static float[] pack(final Datatype type, final int count, final FloatBuffer array, final int origin)
    {
        final ByteBuffer typed = ByteBuffer.allocateDirect(array.capacity() * 4).order(ByteOrder.nativeOrder());
        typed.asFloatBuffer().put(array.duplicate().clear());
        final int packedBytes = (int)(count * type.size());
        final ByteBuffer packed = ByteBuffer.allocateDirect(packedBytes).order(ByteOrder.nativeOrder());
        type.compiled().pack(typed, origin * 4, count, 0, packedBytes, packed, 0);
        final float[] floats = new float[packedBytes / 4];
        packed.asFloatBuffer().get(floats);
        return floats;
    }
}
