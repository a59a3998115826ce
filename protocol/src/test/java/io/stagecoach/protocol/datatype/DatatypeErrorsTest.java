package io.stagecoach.protocol.datatype;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class DatatypeErrorsTest
{
    private static final int DFLT = Datatype.DISTRIBUTE_DFLT_DARG;

    @Test
    void shouldRefuseCompiledFormBeforeCommit()
    {
        final Datatype type = Datatype.vector(2, 1, 2, Datatype.INT);
        assertMessage(type::compiled, "is not committed", "vector(2, 1, 2, INT)");
        type.commit();
        assertEquals(8, type.compiled().size());
    }

    @Test
    void shouldRefuseEveryUseAfterFree()
    {
        final Datatype type = Datatype.contiguous(4, Datatype.INT).commit();
        type.free();
        assertTrue(type.isFreed());
        for (final Executable use : new Executable[]{ type::size, type::extent, type::lb, type::ub, type::trueLb,
            type::trueExtent, type::elementCount, type::signature, type::compiled, type::commit, type::dup,
            type::free, () -> type.resized(0, 4), () -> Datatype.contiguous(2, type), () -> type.countOf(16),
            () -> type.checkReceive(1, 4, "") })
        {
            assertMessage(use, "after it was freed", "contiguous(4, INT)");
        }
    }

    @Test
    void shouldKeepTypesBuiltFromAFreedType()
    {
        final Datatype inner = Datatype.contiguous(2, Datatype.INT);
        final Datatype outer = Datatype.vector(2, 1, 3, inner);
        inner.free();
        assertEquals(16, outer.commit().compiled().size());
    }

    @Test
    void shouldRefuseToFreePredefinedTypes()
    {
        assertMessage(Datatype.INT::free, "predefined datatype INT cannot be freed");
    }

    @Test
    void shouldRefuseNegativeCountsAndBlockLengths()
    {
        assertMessage(() -> Datatype.contiguous(-1, Datatype.INT), "count must be >= 0, was -1");
        assertMessage(() -> Datatype.vector(-2, 1, 1, Datatype.INT), "count must be >= 0, was -2");
        assertMessage(() -> Datatype.vector(2, -1, 1, Datatype.INT), "blockLength must be >= 0, was -1");
        assertMessage(() -> Datatype.hvector(2, -3, 1, Datatype.INT), "blockLength must be >= 0, was -3");
        assertMessage(() -> Datatype.indexed(new int[]{ 1, -5 }, new int[]{ 0, 1 }, Datatype.INT),
            "blockLengths[1] must be >= 0, was -5");
        assertMessage(() -> Datatype.hindexed(new int[]{ -1 }, new long[]{ 0 }, Datatype.INT),
            "blockLengths[0] must be >= 0, was -1");
        assertMessage(() -> Datatype.indexedBlock(-1, new int[]{ 0 }, Datatype.INT), "blockLength must be >= 0");
        assertMessage(() -> Datatype.hindexedBlock(-1, new long[]{ 0 }, Datatype.INT), "blockLength must be >= 0");
        assertMessage(() -> Datatype.struct(new int[]{ 1, -2 }, new long[]{ 0, 4 },
            new Datatype[]{ Datatype.INT, Datatype.INT }), "blockLengths[1] must be >= 0, was -2");
        assertMessage(() -> Datatype.indexed(new int[]{ 1, 1 }, new int[]{ 0 }, Datatype.INT),
            "2 block lengths but 1 displacements");
    }

    @Test
    void shouldRefuseSubarrayOutsideItsArray()
    {
        assertMessage(() -> Datatype.subarray(new int[]{ 10, 10 }, new int[]{ 5, 5 }, new int[]{ 0, 6 }, Order.C,
            Datatype.INT), "starts[1] + subsizes[1] = 6 + 5 = 11 exceeds sizes[1] = 10");
        assertMessage(() -> Datatype.subarray(new int[]{ 10 }, new int[]{ 0 }, new int[]{ 0 }, Order.C,
            Datatype.INT), "subsizes[0] = 0 is outside [1, 10]");
        assertMessage(() -> Datatype.subarray(new int[]{ 10 }, new int[]{ 11 }, new int[]{ 0 }, Order.C,
            Datatype.INT), "subsizes[0] = 11 is outside [1, 10]");
        assertMessage(() -> Datatype.subarray(new int[]{ 10 }, new int[]{ 2 }, new int[]{ -1 }, Order.C,
            Datatype.INT), "start is negative");
        assertMessage(() -> Datatype.subarray(new int[]{ 0 }, new int[]{ 1 }, new int[]{ 0 }, Order.C,
            Datatype.INT), "sizes[0] must be >= 1, was 0");
        assertMessage(() -> Datatype.subarray(new int[]{ 4, 4 }, new int[]{ 1 }, new int[]{ 0, 0 }, Order.C,
            Datatype.INT), "subsizes has 1 entries for 2 dimensions");
    }

    @Test
    void shouldRefuseDarrayGridThatDoesNotMatchSizeOrRank()
    {
        final Distribution[] block2 = { Distribution.BLOCK, Distribution.BLOCK };
        final int[] dflt2 = { DFLT, DFLT };
        assertMessage(() -> Datatype.darray(6, 0, new int[]{ 8, 8 }, block2, dflt2, new int[]{ 2, 2 }, Order.C,
            Datatype.INT), "process grid [2, 2] has 4 processes but size is 6");
        assertMessage(() -> Datatype.darray(4, 4, new int[]{ 8, 8 }, block2, dflt2, new int[]{ 2, 2 }, Order.C,
            Datatype.INT), "rank 4 is outside [0, 4)");
        assertMessage(() -> Datatype.darray(4, -1, new int[]{ 8, 8 }, block2, dflt2, new int[]{ 2, 2 }, Order.C,
            Datatype.INT), "rank -1 is outside [0, 4)");
        assertMessage(() -> Datatype.darray(2, 0, new int[]{ 8 }, new Distribution[]{ Distribution.NONE },
            new int[]{ DFLT }, new int[]{ 2 }, Order.C, Datatype.INT), "psizes[0] is 2; it must be 1");
        assertMessage(() -> Datatype.darray(2, 0, new int[]{ 9 }, new Distribution[]{ Distribution.BLOCK },
            new int[]{ 4 }, new int[]{ 2 }, Order.C, Datatype.INT), "covers 8 elements, fewer than gsize 9");
        assertMessage(() -> Datatype.darray(2, 0, new int[]{ 9 }, new Distribution[]{ Distribution.CYCLIC },
            new int[]{ 0 }, new int[]{ 2 }, Order.C, Datatype.INT), "dargs[0] must be >= 1");
        assertMessage(() -> Datatype.darray(1, 0, new int[]{ 0 }, new Distribution[]{ Distribution.CYCLIC },
            new int[]{ DFLT }, new int[]{ 1 }, Order.C, Datatype.INT), "gsizes[0] must be >= 1, was 0");
    }

    @Test
    void shouldRefuseSizeOverflowingLong()
    {
        final Datatype big = Datatype.contiguous(Integer.MAX_VALUE, Datatype.LONG).resized(0, 1);
        assertMessage(() -> Datatype.contiguous(Integer.MAX_VALUE, big),
            "size in bytes of contiguous(2147483647, resized(", "overflows the long limit 9223372036854775807",
            "2147483647 x 17179869176");
        assertMessage(() -> Datatype.contiguous(Integer.MAX_VALUE, Datatype.BYTE.resized(0, 1L << 40)),
            "extent overflows the long limit");
    }

    @Test
    void shouldRefuseExtentOverflowingLong()
    {
        assertMessage(() -> Datatype.hvector(3, 1, Long.MAX_VALUE / 2, Datatype.INT), "overflows the long limit");
        assertMessage(() -> Datatype.INT.resized(Long.MAX_VALUE - 2, 8), "overflows the long limit");
    }

    @Test
    void shouldRefuseSubarrayAndDarrayExtentOverflowingLong()
    {
        final Datatype wide = Datatype.BYTE.resized(0, Long.MAX_VALUE / 4);
        assertMessage(() -> Datatype.subarray(new int[]{ 8 }, new int[]{ 1 }, new int[]{ 0 }, Order.C, wide),
            "overflows the long limit");
        assertMessage(() -> Datatype.darray(1, 0, new int[]{ 8 }, new Distribution[]{ Distribution.BLOCK },
            new int[]{ DFLT }, new int[]{ 1 }, Order.C, wide), "overflows the long limit");
    }

    @Test
    void shouldThrowTruncationNamingBothSizes()
    {
        final Datatype type = Datatype.contiguous(1024, Datatype.INT);
        type.checkReceive(2, 8192, "tag=7, source=1");
        final TruncationException ex = assertThrows(TruncationException.class,
            () -> type.checkReceive(1, 8192, "tag=7, source=1"));
        assertEquals("receive buffer holds 4096 bytes, message has 8192 (tag=7, source=1)", ex.getMessage());
        assertEquals(4096, ex.capacityBytes());
        assertEquals(8192, ex.incomingBytes());
    }

    @Test
    void shouldRefusePackRangesBeyondTheData()
    {
        final CompiledType compiled = Datatype.vector(4, 1, 2, Datatype.INT).commit().compiled();
        final byte[] typed = new byte[64];
        final byte[] packed = new byte[64];
        assertMessage(IllegalArgumentException.class,
            () -> compiled.pack(typed, 0, 2, 16, 20, packed, 0), "packed range [16, 36) exceeds the 32 packed bytes");
        assertMessage(IllegalArgumentException.class,
            () -> compiled.pack(typed, 0, -1, 0, 0, packed, 0), "count must be >= 0, was -1");
        assertMessage(IllegalArgumentException.class,
            () -> compiled.unpack(packed, 0, 1, -1, 4, typed, 0), "negative offset or length");
        assertMessage(IndexOutOfBoundsException.class,
            () -> compiled.pack(typed, 40, 1, 0, 16, packed, 0), "buffer of 64 bytes with displacement 0 at index 40");
        assertMessage(IndexOutOfBoundsException.class,
            () -> compiled.pack(typed, 0, 1, 0, 16, packed, 50), "cannot hold 16 packed bytes at index 50");
    }

    private static void assertMessage(final Executable executable, final String... parts)
    {
        assertMessage(DatatypeException.class, executable, parts);
    }

    private static void assertMessage(final Class<? extends Throwable> type, final Executable executable,
        final String... parts)
    {
        final Throwable ex = assertThrows(type, executable);
        for (final String part : parts)
        {
            assertTrue(ex.getMessage().contains(part), "message '" + ex.getMessage() + "' lacks '" + part + "'");
        }
    }
}
