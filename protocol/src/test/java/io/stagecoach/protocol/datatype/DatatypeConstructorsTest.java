package io.stagecoach.protocol.datatype;

import java.util.List;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

class DatatypeConstructorsTest
{
    @Test
    void shouldDescribePredefinedTypes()
    {
        final Datatype[] types = { Datatype.BYTE, Datatype.CHAR, Datatype.SHORT, Datatype.INT, Datatype.LONG,
            Datatype.FLOAT, Datatype.DOUBLE, Datatype.BOOLEAN, Datatype.PACKED };
        final int[] sizes = { 1, 2, 2, 4, 8, 4, 8, 1, 1 };
        for (int i = 0; i < types.length; i++)
        {
            assertTrue(types[i].isCommitted());
            assertEquals(sizes[i], types[i].size(), types[i].toString());
            assertEquals(sizes[i], types[i].extent());
            assertEquals(0, types[i].lb());
            assertEquals(sizes[i], types[i].ub());
            assertEquals(1, types[i].elementCount());
            assertTrue(types[i].compiled().isContiguous());
            for (int j = 0; j < i; j++)
            {
                assertFalse(types[i].signature().equals(types[j].signature()), types[i] + " vs " + types[j]);
            }
        }
    }

    @Test
    void shouldBuildContiguousAndEmptyContiguous()
    {
        final Datatype type = Datatype.contiguous(5, Datatype.INT);
        assertEquals(20, type.size());
        assertEquals(20, type.extent());
        assertEquals(5, type.elementCount());
        final Datatype empty = Datatype.contiguous(0, Datatype.DOUBLE);
        assertEquals(0, empty.size());
        assertEquals(0, empty.extent());
        assertEquals(0, empty.lb());
        assertEquals(0, empty.trueExtent());
        assertEquals(0, empty.commit().compiled().size());
    }

    @Test
    void shouldBuildVectorWithZeroStrideRepeatingTheSameBlock()
    {
        final Datatype type = Datatype.vector(3, 2, 0, Datatype.SHORT);
        assertEquals(List.of("SHORT@0", "SHORT@2", "SHORT@0", "SHORT@2", "SHORT@0", "SHORT@2"), TypeMaps.of(type));
        assertEquals(4, type.extent());
        assertEquals(12, type.size());
    }

    @Test
    void shouldPadHvectorWithUnalignedStrideToTheAlignmentOfItsElements()
    {
        final Datatype type = Datatype.hvector(2, 1, 3, Datatype.INT);
        assertEquals(List.of("INT@0", "INT@3"), TypeMaps.of(type));
        assertEquals(8, type.extent(), "7 bytes padded to a multiple of 4");
        assertEquals(7, type.trueExtent());
        assertEquals(16, Datatype.contiguous(2, type).extent(), "copies 8 bytes apart end at 15, padded to 16");
    }

    @Test
    void shouldPadNegativeHvectorOfDoublesTo24Bytes()
    {
        final Datatype type = Datatype.hvector(2, 1, -12, Datatype.DOUBLE);
        assertEquals(List.of("DOUBLE@0", "DOUBLE@-12"), TypeMaps.of(type));
        assertEquals(-12, type.lb());
        assertEquals(12, type.ub());
        assertEquals(24, type.extent());
        assertEquals(20, type.trueExtent());
    }

    @Test
    void shouldPadEveryConstructorButNotResized()
    {
        final Datatype pair = Datatype.hindexed(new int[]{ 1, 1 }, new long[]{ 0, 5 }, Datatype.SHORT);
        assertEquals(8, pair.extent(), "7 bytes padded to a multiple of 2");
        assertEquals(32, Datatype.indexedBlock(1, new int[]{ 0, 3 }, pair).extent(), "31 bytes padded to 32");
        assertEquals(6, Datatype.hindexedBlock(1, new long[]{ 0, 3 }, Datatype.SHORT).extent());
        assertEquals(7, pair.resized(0, 7).extent());
        assertEquals(14, Datatype.contiguous(2, pair.resized(0, 7)).extent(), "markers win, no epsilon");
        assertEquals(3, Datatype.hvector(3, 1, 1, Datatype.BYTE).extent(), "bytes align to 1");
    }

    @Test
    void shouldTakeCountsBlockLengthsAndDisplacementsBeyondTheIntRange()
    {
        final long big = 3_000_000_000L;
        final Datatype bytes = Datatype.contiguous(big, Datatype.BYTE).commit();
        assertEquals(big, bytes.size());
        assertEquals(big, bytes.extent());
        assertTrue(bytes.compiled().isContiguous());
        final Datatype everyOther = Datatype.vector(big, 1, 2, Datatype.BYTE).commit();
        assertEquals(big, everyOther.size());
        assertEquals(2 * big - 1, everyOther.extent());
        assertEquals(2 * big, Datatype.hvector(2, big, 4 * big, Datatype.BYTE).size());
        final Datatype indexed = Datatype.indexed(new long[]{ big }, new long[]{ 5 * big }, Datatype.SHORT);
        assertEquals(10 * big, indexed.trueLb());
        assertEquals(2 * big, indexed.size());
        assertEquals(big, Datatype.hindexed(new long[]{ big }, new long[]{ -big }, Datatype.BYTE).size());
        assertEquals(-big, Datatype.indexedBlock(big, new long[]{ -big }, Datatype.BYTE).lb());
        assertEquals(2 * big, Datatype.hindexedBlock(big, new long[]{ 0, big }, Datatype.BYTE).size());
        assertEquals(big + 8, Datatype.struct(new long[]{ big, 1 }, new long[]{ 0, big },
            new Datatype[]{ Datatype.BYTE, Datatype.DOUBLE }).size());
        final Datatype tail = Datatype.subarray(new long[]{ 5 * big }, new long[]{ 10 }, new long[]{ 5 * big - 10 },
            Order.C, Datatype.BYTE);
        assertEquals(5 * big, tail.extent());
        assertEquals(5 * big - 10, tail.trueLb());
        final Datatype half = Datatype.darray(2, 1, new long[]{ 2 * big }, new Distribution[]{ Distribution.BLOCK },
            new int[]{ Datatype.DISTRIBUTE_DFLT_DARG }, new int[]{ 2 }, Order.C, Datatype.BYTE);
        assertEquals(big, half.trueLb());
        assertEquals(big, half.size());
    }

    @Test
    void shouldBuildTheSameTypeFromIntAndLongArguments()
    {
        final int[] lengths = { 2, 1 };
        final long[] longLengths = { 2, 1 };
        assertAlike(Datatype.indexed(lengths, new int[]{ 3, -1 }, Datatype.INT),
            Datatype.indexed(longLengths, new long[]{ 3, -1 }, Datatype.INT));
        assertAlike(Datatype.hindexed(lengths, new long[]{ 12, -4 }, Datatype.INT),
            Datatype.hindexed(longLengths, new long[]{ 12, -4 }, Datatype.INT));
        assertAlike(Datatype.indexedBlock(2, new int[]{ 3, -1 }, Datatype.INT),
            Datatype.indexedBlock(2, new long[]{ 3, -1 }, Datatype.INT));
        assertAlike(Datatype.struct(lengths, new long[]{ 0, 8 }, new Datatype[]{ Datatype.INT, Datatype.DOUBLE }),
            Datatype.struct(longLengths, new long[]{ 0, 8 }, new Datatype[]{ Datatype.INT, Datatype.DOUBLE }));
        assertAlike(Datatype.subarray(new int[]{ 4, 6 }, new int[]{ 2, 3 }, new int[]{ 1, 2 }, Order.C, Datatype.INT),
            Datatype.subarray(new long[]{ 4, 6 }, new long[]{ 2, 3 }, new long[]{ 1, 2 }, Order.C, Datatype.INT));
        assertAlike(Datatype.darray(4, 3, new int[]{ 8, 8 }, new Distribution[]{ Distribution.BLOCK,
            Distribution.CYCLIC }, new int[]{ Datatype.DISTRIBUTE_DFLT_DARG, 2 }, new int[]{ 2, 2 }, Order.C,
            Datatype.INT), Datatype.darray(4, 3, new long[]{ 8, 8 }, new Distribution[]{ Distribution.BLOCK,
            Distribution.CYCLIC }, new int[]{ Datatype.DISTRIBUTE_DFLT_DARG, 2 }, new int[]{ 2, 2 }, Order.C,
            Datatype.INT));
    }

    private static void assertAlike(final Datatype expected, final Datatype actual)
    {
        assertEquals(expected.toString(), actual.toString());
        assertEquals(expected.lb(), actual.lb());
        assertEquals(expected.extent(), actual.extent());
        assertEquals(expected.signature(), actual.signature());
        assertEquals(TypeMaps.of(expected), TypeMaps.of(actual));
    }

    @Test
    void shouldBuildIndexedWithNegativeDisplacements()
    {
        final Datatype type = Datatype.indexed(new int[]{ 2, 0, 1 }, new int[]{ -3, 100, 5 }, Datatype.INT);
        assertEquals(List.of("INT@-12", "INT@-8", "INT@20"), TypeMaps.of(type));
        assertEquals(-12, type.lb());
        assertEquals(24, type.ub());
        assertEquals(12, type.size());
    }

    @Test
    void shouldBuildHindexedInGivenOrder()
    {
        final Datatype type = Datatype.hindexed(new int[]{ 1, 2 }, new long[]{ 40, -6 }, Datatype.SHORT);
        assertEquals(List.of("SHORT@40", "SHORT@-6", "SHORT@-4"), TypeMaps.of(type));
        assertEquals(-6, type.lb());
        assertEquals(42, type.ub());
    }

    @Test
    void shouldBuildIndexedBlockAndHindexedBlock()
    {
        final Datatype indexed = Datatype.indexedBlock(2, new int[]{ 0, 5, -2 }, Datatype.FLOAT);
        assertEquals(List.of("FLOAT@0", "FLOAT@4", "FLOAT@20", "FLOAT@24", "FLOAT@-8", "FLOAT@-4"),
            TypeMaps.of(indexed));
        final Datatype hindexed = Datatype.hindexedBlock(2, new long[]{ 0, 20, -8 }, Datatype.FLOAT);
        assertEquals(TypeMaps.of(indexed), TypeMaps.of(hindexed));
        assertEquals(indexed.signature(), hindexed.signature());
        assertEquals(-8, hindexed.lb());
        assertEquals(28, hindexed.ub());
    }

    @Test
    void shouldPadStructToLargestAlignment()
    {
        assertEquals(8, struct(Datatype.INT, 0, Datatype.BYTE, 4).extent());
        assertEquals(4, struct(Datatype.CHAR, 0, Datatype.BYTE, 2).extent());
        assertEquals(16, struct(Datatype.LONG, 0, Datatype.SHORT, 8).extent());
        assertEquals(3, struct(Datatype.BYTE, 0, Datatype.BOOLEAN, 2).extent());
        final Datatype negative = struct(Datatype.INT, -8, Datatype.BYTE, 0);
        assertEquals(-8, negative.lb());
        assertEquals(12, negative.extent(), "9 bytes from -8 padded to a multiple of 4");
    }

    @Test
    void shouldNotPadStructWithExplicitBounds()
    {
        final Datatype marked = Datatype.struct(new int[]{ 1, 1 }, new long[]{ 0, 8 },
            new Datatype[]{ Datatype.INT.resized(0, 5), Datatype.DOUBLE });
        assertEquals(0, marked.lb());
        assertEquals(5, marked.ub(), "only the markers count once a component has them");
        assertEquals(16, marked.trueExtent());
    }

    @Test
    void shouldKeepInheritedMarkersThroughConstructors()
    {
        final Datatype resized = Datatype.contiguous(2, Datatype.INT).resized(-4, 16);
        final Datatype vector = Datatype.vector(2, 1, 3, resized);
        assertEquals(-4, vector.lb());
        assertEquals(-4 + 48 + 16, vector.ub());
        assertEquals(0, vector.trueLb());
        assertEquals(56, vector.trueExtent());
    }

    @Test
    void shouldResizeLowerBoundAndExtent()
    {
        final Datatype type = Datatype.vector(2, 1, 2, Datatype.DOUBLE).resized(-8, 40);
        assertEquals(-8, type.lb());
        assertEquals(32, type.ub());
        assertEquals(40, type.extent());
        assertEquals(0, type.trueLb());
        assertEquals(24, type.trueExtent());
        assertEquals(16, type.size());
        assertEquals(TypeMaps.of(Datatype.vector(2, 1, 2, Datatype.DOUBLE)), TypeMaps.of(type));
    }

    @Test
    void shouldDupKeepingPropertiesAndCommittedState()
    {
        final Datatype original = Datatype.vector(3, 2, 5, Datatype.INT);
        final Datatype uncommittedCopy = original.dup();
        assertFalse(uncommittedCopy.isCommitted());
        original.commit();
        final Datatype copy = original.dup();
        assertNotSame(original, copy);
        assertTrue(copy.isCommitted());
        assertEquals(original.extent(), copy.extent());
        assertEquals(original.signature(), copy.signature());
        assertEquals(TypeMaps.of(original), TypeMaps.of(copy));
        original.free();
        assertEquals(24, copy.size(), "a dup survives freeing the original");
    }

    @Test
    void shouldBuildSubarrayInCOrder()
    {
        final Datatype type = Datatype.subarray(new int[]{ 3, 4 }, new int[]{ 2, 2 }, new int[]{ 1, 1 }, Order.C,
            Datatype.INT);
        assertEquals(List.of("INT@20", "INT@24", "INT@36", "INT@40"), TypeMaps.of(type));
        assertEquals(0, type.lb());
        assertEquals(48, type.extent());
        assertEquals(20, type.trueLb());
        assertEquals(24, type.trueExtent());
    }

    @Test
    void shouldBuildSubarrayInFortranOrder()
    {
        final Datatype type = Datatype.subarray(new int[]{ 3, 4 }, new int[]{ 2, 2 }, new int[]{ 1, 1 },
            Order.FORTRAN, Datatype.INT);
        assertEquals(List.of("INT@16", "INT@20", "INT@28", "INT@32"), TypeMaps.of(type));
        assertEquals(48, type.extent());
    }

    @Test
    void shouldBuildThreeDimensionalSubarrayOfDerivedType()
    {
        final Datatype pair = Datatype.contiguous(2, Datatype.SHORT);
        final Datatype type = Datatype.subarray(new int[]{ 2, 2, 3 }, new int[]{ 1, 2, 1 }, new int[]{ 1, 0, 2 },
            Order.C, pair);
        assertEquals(List.of("SHORT@32", "SHORT@34", "SHORT@44", "SHORT@46"), TypeMaps.of(type));
        assertEquals(48, type.extent());
    }

    @Test
    void shouldDistributeCyclicWithPartialLastBlock()
    {
        final int[] gsizes = { 10 };
        final Distribution[] cyclic = { Distribution.CYCLIC };
        final Datatype p0 = Datatype.darray(2, 0, gsizes, cyclic, new int[]{ 3 }, new int[]{ 2 }, Order.C,
            Datatype.BYTE);
        final Datatype p1 = Datatype.darray(2, 1, gsizes, cyclic, new int[]{ 3 }, new int[]{ 2 }, Order.C,
            Datatype.BYTE);
        assertEquals(List.of("BYTE@0", "BYTE@1", "BYTE@2", "BYTE@6", "BYTE@7", "BYTE@8"), TypeMaps.of(p0));
        assertEquals(List.of("BYTE@3", "BYTE@4", "BYTE@5", "BYTE@9"), TypeMaps.of(p1));
        assertEquals(10, p0.extent());
        assertEquals(10, p1.extent());
        assertEquals(0, p1.lb());
    }

    @Test
    void shouldDistributeCyclicWithDefaultBlockOfOne()
    {
        final Datatype type = Datatype.darray(3, 2, new int[]{ 8 }, new Distribution[]{ Distribution.CYCLIC },
            new int[]{ Datatype.DISTRIBUTE_DFLT_DARG }, new int[]{ 3 }, Order.FORTRAN, Datatype.SHORT);
        assertEquals(List.of("SHORT@4", "SHORT@10"), TypeMaps.of(type));
        assertEquals(16, type.extent());
    }

    @Test
    void shouldDistributeBlockWithDefaultAndExplicitBlockAndEmptyProcess()
    {
        final Distribution[] block = { Distribution.BLOCK };
        final int[] dflt = { Datatype.DISTRIBUTE_DFLT_DARG };
        assertEquals(List.of("INT@12", "INT@16", "INT@20"),
            TypeMaps.of(Datatype.darray(3, 1, new int[]{ 7 }, block, dflt, new int[]{ 3 }, Order.C, Datatype.INT)));
        assertEquals(List.of("INT@24"),
            TypeMaps.of(Datatype.darray(3, 2, new int[]{ 7 }, block, dflt, new int[]{ 3 }, Order.C, Datatype.INT)));
        final Datatype empty = Datatype.darray(3, 2, new int[]{ 7 }, block, new int[]{ 4 }, new int[]{ 3 },
            Order.C, Datatype.INT);
        assertEquals(0, empty.size());
        assertEquals(0, empty.lb());
        assertEquals(28, empty.extent(), "even an empty piece spans the global array");
    }

    @Test
    void shouldDistributeTwoDimensionsOnRowMajorGrid()
    {
        final Datatype type = Datatype.darray(4, 1, new int[]{ 4, 4 },
            new Distribution[]{ Distribution.BLOCK, Distribution.CYCLIC },
            new int[]{ Datatype.DISTRIBUTE_DFLT_DARG, Datatype.DISTRIBUTE_DFLT_DARG }, new int[]{ 2, 2 }, Order.C,
            Datatype.BYTE);
        assertEquals(List.of("BYTE@1", "BYTE@3", "BYTE@5", "BYTE@7"), TypeMaps.of(type),
            "rank 1 is grid row 0, column 1: rows 0-1, odd columns");
        assertEquals(16, type.extent());
    }

    @Test
    void shouldScaleDarrayExtentWithOldtypeExtent()
    {
        final Datatype old = Datatype.DOUBLE.resized(0, 12);
        final Datatype type = Datatype.darray(2, 1, new int[]{ 5, 3 },
            new Distribution[]{ Distribution.CYCLIC, Distribution.NONE }, new int[]{ 2, 0 }, new int[]{ 2, 1 },
            Order.C, old);
        assertEquals(5 * 3 * 12, type.extent());
        assertEquals(2 * 3, type.elementCount());
        assertEquals(List.of("DOUBLE@72", "DOUBLE@84", "DOUBLE@96", "DOUBLE@108", "DOUBLE@120", "DOUBLE@132"),
            TypeMaps.of(type));
    }

    @Test
    void shouldDescribeConstruction()
    {
        final Datatype type = Datatype.vector(3, 1, 4, Datatype.contiguous(2, Datatype.FLOAT));
        assertEquals("vector(3, 1, 4, contiguous(2, FLOAT))", type.toString());
    }

    private static Datatype struct(final Datatype first, final long firstDisplacement, final Datatype second,
        final long secondDisplacement)
    {
        return Datatype.struct(new int[]{ 1, 1 }, new long[]{ firstDisplacement, secondDisplacement },
            new Datatype[]{ first, second });
    }
}
