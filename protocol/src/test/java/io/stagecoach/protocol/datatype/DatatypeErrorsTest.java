package io.stagecoach.protocol.datatype;

import io.stagecoach.protocol.ErrorClass;
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
        assertMessage(ErrorClass.TYPE, type::compiled, "is not committed", "vector(2, 1, 2, INT)");
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
            assertMessage(ErrorClass.TYPE, use, "after it was freed", "contiguous(4, INT)");
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
        assertMessage(ErrorClass.TYPE, Datatype.INT::free, "predefined datatype INT cannot be freed");
    }

    @Test
    void shouldRefuseNegativeCountsAsCountAndNegativeBlockLengthsAsArg()
    {
        assertMessage(ErrorClass.COUNT, () -> Datatype.contiguous(-1, Datatype.INT), "count must be >= 0, was -1");
        assertMessage(ErrorClass.COUNT, () -> Datatype.vector(-2, 1, 1, Datatype.INT), "count must be >= 0, was -2");
        assertMessage(ErrorClass.ARG, () -> Datatype.vector(2, -1, 1, Datatype.INT),
            "blockLength must be >= 0, was -1");
        assertMessage(ErrorClass.ARG, () -> Datatype.hvector(2, -3, 1, Datatype.INT),
            "blockLength must be >= 0, was -3");
        assertMessage(ErrorClass.ARG, () -> Datatype.indexed(new int[]{ 1, -5 }, new int[]{ 0, 1 }, Datatype.INT),
            "blockLengths[1] must be >= 0, was -5");
        assertMessage(ErrorClass.ARG, () -> Datatype.hindexed(new int[]{ -1 }, new long[]{ 0 }, Datatype.INT),
            "blockLengths[0] must be >= 0, was -1");
        assertMessage(ErrorClass.ARG, () -> Datatype.indexedBlock(-1, new int[]{ 0 }, Datatype.INT),
            "blockLength must be >= 0");
        assertMessage(ErrorClass.ARG, () -> Datatype.hindexedBlock(-1, new long[]{ 0 }, Datatype.INT),
            "blockLength must be >= 0");
        assertMessage(ErrorClass.ARG, () -> Datatype.struct(new int[]{ 1, -2 }, new long[]{ 0, 4 },
            new Datatype[]{ Datatype.INT, Datatype.INT }), "blockLengths[1] must be >= 0, was -2");
        assertMessage(ErrorClass.ARG, () -> Datatype.indexed(new int[]{ 1, 1 }, new int[]{ 0 }, Datatype.INT),
            "2 block lengths but 1 displacements");
        assertMessage(ErrorClass.COUNT, () -> Datatype.INT.signature(-1), "signature count must be >= 0, was -1");
        assertMessage(ErrorClass.COUNT, () -> Datatype.INT.checkReceive(-2, 0, ""), "receive count must be >= 0");
        assertMessage(ErrorClass.SIZE, () -> Datatype.INT.countOf(-4), "received bytes must be >= 0, was -4");
    }

    @Test
    void shouldRefuseANullDatatypeAsType()
    {
        assertMessage(ErrorClass.TYPE, () -> Datatype.contiguous(1, null), "contiguous: the datatype is null");
        assertMessage(ErrorClass.TYPE, () -> Datatype.struct(new int[]{ 1, 1 }, new long[]{ 0, 4 },
            new Datatype[]{ Datatype.INT, null }), "struct types[1]: the datatype is null");
    }

    @Test
    void shouldRefuseSubarrayOutsideItsArray()
    {
        assertMessage(ErrorClass.ARG, () -> Datatype.subarray(new int[]{ 10, 10 }, new int[]{ 5, 5 },
            new int[]{ 0, 6 }, Order.C, Datatype.INT), "starts[1] + subsizes[1] = 6 + 5 = 11 exceeds sizes[1] = 10");
        assertMessage(ErrorClass.ARG, () -> Datatype.subarray(new int[]{ 10 }, new int[]{ 0 }, new int[]{ 0 },
            Order.C, Datatype.INT), "subsizes[0] = 0 is outside [1, 10]");
        assertMessage(ErrorClass.ARG, () -> Datatype.subarray(new int[]{ 10 }, new int[]{ 11 }, new int[]{ 0 },
            Order.C, Datatype.INT), "subsizes[0] = 11 is outside [1, 10]");
        assertMessage(ErrorClass.ARG, () -> Datatype.subarray(new int[]{ 0 }, new int[]{ 1 }, new int[]{ 0 },
            Order.C, Datatype.INT), "sizes[0] must be >= 1, was 0");
        assertMessage(ErrorClass.ARG, () -> Datatype.subarray(new int[]{ 4, 4 }, new int[]{ 1 }, new int[]{ 0, 0 },
            Order.C, Datatype.INT), "subsizes has 1 entries for 2 dimensions");
        assertMessage(ErrorClass.DIMS, () -> Datatype.subarray(new int[0], new int[0], new int[0], Order.C,
            Datatype.INT), "sizes must have at least 1 dimension, has 0");
    }

    @Test
    void shouldReportANegativeSubarrayStartAsNegative()
    {
        final DatatypeException ex = assertThrows(DatatypeException.class, () -> Datatype.subarray(new int[]{ 10 },
            new int[]{ 2 }, new int[]{ -1 }, Order.C, Datatype.INT));
        assertEquals("subarray: starts[0] = -1 is negative; it must be in [0, 8] (sizes[0] - subsizes[0])",
            ex.getMessage());
        assertEquals(ErrorClass.ARG, ex.errorClass());
    }

    @Test
    void shouldRefuseDarrayGridThatDoesNotMatchSizeOrRank()
    {
        final Distribution[] block2 = { Distribution.BLOCK, Distribution.BLOCK };
        final int[] dflt2 = { DFLT, DFLT };
        final int[] grid = { 2, 2 };
        final int[] gsizes = { 8, 8 };
        final Distribution[] none = { Distribution.NONE };
        final Distribution[] block = { Distribution.BLOCK };
        final Distribution[] cyclic = { Distribution.CYCLIC };
        final int[] dflt = { DFLT };
        assertMessage(ErrorClass.ARG, () -> Datatype.darray(6, 0, gsizes, block2, dflt2, grid, Order.C, Datatype.INT),
            "process grid [2, 2] has 4 processes but size is 6");
        assertMessage(ErrorClass.ARG, () -> Datatype.darray(4, 4, gsizes, block2, dflt2, grid, Order.C, Datatype.INT),
            "rank 4 is outside [0, 4)");
        assertMessage(ErrorClass.ARG, () -> Datatype.darray(4, -1, gsizes, block2, dflt2, grid, Order.C, Datatype.INT),
            "rank -1 is outside [0, 4)");
        assertMessage(ErrorClass.ARG, () -> Datatype.darray(2, 0, new int[]{ 8 }, none, dflt, new int[]{ 2 }, Order.C,
            Datatype.INT), "psizes[0] is 2; it must be 1");
        assertMessage(ErrorClass.ARG, () -> Datatype.darray(2, 0, new int[]{ 9 }, block, new int[]{ 4 },
            new int[]{ 2 }, Order.C, Datatype.INT), "covers 8 elements, fewer than gsize 9");
        assertMessage(ErrorClass.ARG, () -> Datatype.darray(2, 0, new int[]{ 9 }, cyclic, new int[]{ 0 },
            new int[]{ 2 }, Order.C, Datatype.INT), "dargs[0] must be >= 1");
        assertMessage(ErrorClass.ARG, () -> Datatype.darray(1, 0, new int[]{ 0 }, cyclic, dflt, new int[]{ 1 },
            Order.C, Datatype.INT), "gsizes[0] must be >= 1, was 0");
    }

    @Test
    void shouldRefuseSizeOverflowingLong()
    {
        final Datatype big = Datatype.contiguous(Integer.MAX_VALUE, Datatype.LONG).resized(0, 1);
        assertMessage(ErrorClass.VALUE_TOO_LARGE, () -> Datatype.contiguous(Integer.MAX_VALUE, big),
            "size in bytes of contiguous(2147483647, resized(", "overflows the long limit 9223372036854775807",
            "2147483647 x 17179869176");
        assertMessage(ErrorClass.VALUE_TOO_LARGE,
            () -> Datatype.contiguous(Integer.MAX_VALUE, Datatype.BYTE.resized(0, 1L << 40)),
            "extent overflows the long limit");
    }

    @Test
    void shouldRefuseExtentOverflowingLong()
    {
        assertMessage(ErrorClass.VALUE_TOO_LARGE, () -> Datatype.hvector(3, 1, Long.MAX_VALUE / 2, Datatype.INT),
            "overflows the long limit");
        assertMessage(ErrorClass.VALUE_TOO_LARGE, () -> Datatype.INT.resized(Long.MAX_VALUE - 2, 8),
            "overflows the long limit");
        assertMessage(ErrorClass.COUNT, () -> Datatype.INT.checkReceive(Long.MAX_VALUE / 2, 0, ""),
            "receive buffer size overflows the long limit");
    }

    @Test
    void shouldRefuseSubarrayAndDarrayExtentOverflowingLong()
    {
        final Datatype wide = Datatype.BYTE.resized(0, Long.MAX_VALUE / 4);
        assertMessage(ErrorClass.VALUE_TOO_LARGE,
            () -> Datatype.subarray(new int[]{ 8 }, new int[]{ 1 }, new int[]{ 0 }, Order.C, wide),
            "overflows the long limit");
        assertMessage(ErrorClass.VALUE_TOO_LARGE, () -> Datatype.darray(1, 0, new int[]{ 8 },
            new Distribution[]{ Distribution.BLOCK }, new int[]{ DFLT }, new int[]{ 1 }, Order.C, wide),
            "overflows the long limit");
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
        assertEquals(ErrorClass.TRUNCATE, ex.errorClass());
    }

    @Test
    void shouldClassifySignatureMismatchAsTypeAndLongerSignatureAsTruncate()
    {
        final Datatype ints = Datatype.contiguous(2, Datatype.INT);
        final SignatureMismatchException mismatch = assertThrows(SignatureMismatchException.class,
            () -> ints.checkSignature(1, Datatype.FLOAT.signature(1), "tag=3"));
        assertEquals(ErrorClass.TYPE, mismatch.errorClass());
        assertEquals(ErrorClass.TRUNCATE, assertThrows(TruncationException.class,
            () -> ints.checkSignature(1, Datatype.INT.signature(3), "tag=3")).errorClass());
        assertMessage(ErrorClass.COUNT, () -> Datatype.INT.signature().prefix(2), "prefix length 2 is outside [0, 1]");
        assertMessage(ErrorClass.ARG, () -> TypeSignature.decode(new long[]{ -1, 0, 0 }, 0),
            "encoded signature is invalid");
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

    private static void assertMessage(final ErrorClass errorClass, final Executable executable,
        final String... parts)
    {
        final DatatypeException ex = assertThrows(DatatypeException.class, executable);
        assertMessage(ex, parts);
        assertEquals(errorClass, ex.errorClass(), ex.getMessage());
    }

    private static void assertMessage(final Class<? extends Throwable> type, final Executable executable,
        final String... parts)
    {
        assertMessage(assertThrows(type, executable), parts);
    }

    private static void assertMessage(final Throwable ex, final String... parts)
    {
        for (final String part : parts)
        {
            assertTrue(ex.getMessage().contains(part), "message '" + ex.getMessage() + "' lacks '" + part + "'");
        }
    }
}
