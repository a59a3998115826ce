package io.stagecoach.protocol.datatype;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import org.agrona.BufferUtil;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CompiledTypeTest
{
    private static final int N = 1024;

    @Test
    void shouldGiveBoundsAndTrueBoundsLikeItsDatatype()
    {
        final Datatype type = Datatype.hvector(2, 1, -12, Datatype.DOUBLE).resized(-16, 40).commit();
        final CompiledType compiled = type.compiled();
        assertEquals(type.lb(), compiled.lb());
        assertEquals(type.ub(), compiled.ub());
        assertEquals(24, compiled.ub());
        assertEquals(-12, compiled.trueLb());
        assertEquals(20, compiled.trueExtent());
        assertEquals(type.trueExtent(), compiled.trueExtent());
        assertEquals(0, Datatype.contiguous(0, Datatype.INT).commit().compiled().trueExtent());
    }

    @Test
    void shouldCompileFacesOfA1024CubeToAHandfulOfNodes()
    {
        final int[] sizes = { N, N, N };
        final CompiledType zFace = compile(Datatype.subarray(sizes, new int[]{ 1, N, N }, new int[]{ 5, 0, 0 },
            Order.C, Datatype.FLOAT));
        assertArrayEquals(new long[]{ 0, 5L * N * N * 4, 4L * N * N, 0, 0, 0 }, zFace.code());
        assertTrue(zFace.isContiguous() == false && zFace.nodeCount() == 1);

        final CompiledType yFace = compile(Datatype.subarray(sizes, new int[]{ N, 1, N }, new int[]{ 0, 7, 0 },
            Order.C, Datatype.FLOAT));
        assertArrayEquals(new long[]{ 1, 7L * N * 4, 4L * N * N, N, 4L * N * N, 1, 0, 0, 4L * N, 0, 0, 0 },
            yFace.code());

        final CompiledType xFace = compile(Datatype.subarray(sizes, new int[]{ N, N, 1 }, new int[]{ 0, 0, 3 },
            Order.C, Datatype.FLOAT));
        assertArrayEquals(new long[]{ 1, 12, 4L * N * N, (long)N * N, 4L * N, 1, 0, 0, 4, 0, 0, 0 }, xFace.code(),
            "rows and planes of an x face merge into one vector of N*N floats");

        final CompiledType interior = compile(Datatype.subarray(sizes, new int[]{ N - 2, N - 2, N - 2 },
            new int[]{ 1, 1, 1 }, Order.C, Datatype.FLOAT));
        assertEquals(3, interior.nodeCount());
        assertEquals(3, interior.depth());
    }

    @Test
    void shouldCompileHugeVectorsToTwoNodes()
    {
        final CompiledType vector = compile(Datatype.vector(1_000_000, 1, 2, Datatype.INT));
        assertArrayEquals(new long[]{ 1, 0, 4_000_000, 1_000_000, 8, 1, 0, 0, 4, 0, 0, 0 }, vector.code());
        final CompiledType nested = compile(Datatype.vector(1_000_000, 3, 7, Datatype.vector(1000, 1, 5,
            Datatype.DOUBLE)));
        assertTrue(nested.nodeCount() <= 4, nested.describe());
    }

    @Test
    void shouldMergeContiguousPiecesIntoOneBlock()
    {
        assertTrue(compile(Datatype.contiguous(1000, Datatype.DOUBLE)).isContiguous());
        assertTrue(compile(Datatype.vector(10, 4, 4, Datatype.INT)).isContiguous());
        assertTrue(compile(Datatype.hindexed(new int[]{ 2, 3 }, new long[]{ 0, 8 }, Datatype.INT)).isContiguous());
        assertTrue(compile(Datatype.contiguous(3, Datatype.contiguous(5, Datatype.SHORT))).isContiguous());
        final CompiledType resizedUp = compile(Datatype.INT.resized(0, 8));
        assertEquals(1, resizedUp.nodeCount());
        assertFalse(resizedUp.isContiguous(), "instances are 8 bytes apart");
    }

    @Test
    void shouldVectorizeRegularIndexedBlocks()
    {
        final CompiledType compiled = compile(Datatype.indexed(new int[]{ 2, 2, 2, 2, 5 },
            new int[]{ 0, 10, 20, 30, 100 }, Datatype.FLOAT));
        assertEquals(Node.SEQUENCE, compiled.code()[0]);
        assertEquals(4, compiled.nodeCount(), compiled.describe());
        final long[] code = compiled.code();
        final int table = (int)code[CompiledType.STRIDE];
        assertEquals(4 * 6 + 4, code.length);
        final int first = (int)code[table];
        final int second = (int)code[table + 2];
        assertEquals(0, code[table + 1]);
        assertEquals(32, code[table + 3], "second child starts after four blocks of two floats");
        assertArrayEquals(new long[]{ 1, 0, 32, 4, 40, first + 1 }, slice(code, first));
        assertArrayEquals(new long[]{ 0, 0, 8, 0, 0, 0 }, slice(code, first + 1));
        assertArrayEquals(new long[]{ 0, 400, 20, 0, 0, 0 }, slice(code, second));
    }

    @Test
    void shouldExtendVectorWithFollowingEqualBlock()
    {
        final CompiledType compiled = compile(Datatype.struct(new int[]{ 1, 1 }, new long[]{ 0, 48 },
            new Datatype[]{ Datatype.hvector(3, 1, 16, Datatype.LONG), Datatype.LONG }));
        assertArrayEquals(new long[]{ 1, 0, 32, 4, 16, 1, 0, 0, 8, 0, 0, 0 }, compiled.code(), compiled.describe());
    }

    @Test
    void shouldKeepVectorOfVectorsForRegularRepetition()
    {
        final CompiledType compiled = compile(Datatype.hindexed(new int[]{ 1, 1, 1 }, new long[]{ 0, 1000, 2000 },
            Datatype.hvector(3, 1, 100, Datatype.INT)));
        assertEquals(3, compiled.nodeCount());
        assertEquals(3, compiled.depth());
        assertTrue(compiled.describe().contains("VECTOR offset=0 count=3 stride=1000"), compiled.describe());
    }

    @Test
    void shouldComputeAlignment()
    {
        assertEquals(4, compile(Datatype.vector(3, 1, 2, Datatype.FLOAT)).alignment());
        assertEquals(16, compile(Datatype.vector(3, 4, 8, Datatype.FLOAT)).alignment());
        assertEquals(4, compile(Datatype.vector(3, 2, 3, Datatype.FLOAT)).alignment());
        assertEquals(8, compile(Datatype.vector(3, 2, 4, Datatype.FLOAT)).alignment());
        assertEquals(1, compile(Datatype.hvector(2, 1, 5, Datatype.DOUBLE)).alignment());
        assertEquals(2, compile(Datatype.DOUBLE.resized(0, 10)).alignment());
    }

    @Test
    void shouldEncodeEmptyTypeAsZeroByteBlock()
    {
        final CompiledType empty = compile(Datatype.vector(0, 4, 4, Datatype.INT));
        assertArrayEquals(new long[]{ 0, 0, 0, 0, 0, 0 }, empty.code());
        assertEquals(0, empty.size());
        empty.pack(new byte[0], 0, 10, 0, 0, new byte[0], 0);
    }

    @Test
    void shouldCompileOnceAndStayIdempotent()
    {
        final Datatype type = Datatype.vector(3, 1, 2, Datatype.INT);
        assertFalse(type.isCommitted());
        assertTrue(type.commit() == type.commit());
        assertTrue(type.compiled() == type.compiled());
    }

    private static long[] slice(final long[] code, final int node)
    {
        final long[] record = new long[CompiledType.NODE_LONGS];
        System.arraycopy(code, node * CompiledType.NODE_LONGS, record, 0, record.length);
        return record;
    }

    private static CompiledType compile(final Datatype type)
    {
        return type.commit().compiled();
    }

    @Test
    void shouldCopyRowsToRowsAlikeAndRefuseOthers()
    {
        final CompiledType from = Datatype.vector(8, 16, 64, Datatype.FLOAT).commit().compiled();
        final CompiledType to = Datatype.vector(8, 16, 24, Datatype.FLOAT).commit().compiled();
        final CompiledType shorter = Datatype.vector(16, 8, 24, Datatype.FLOAT).commit().compiled();
        final ByteBuffer source = ByteBuffer.allocateDirect(8 * 64 * 4).order(ByteOrder.nativeOrder());
        for (int i = 0; i < 8 * 64; i++)
        {
            source.putFloat(i * 4, i);
        }
        final ByteBuffer target = ByteBuffer.allocateDirect(8 * 24 * 4).order(ByteOrder.nativeOrder());
        final long src = BufferUtil.address(source);
        final long dst = BufferUtil.address(target);
        assertTrue(from.copyRows(src, to, dst));
        for (int row = 0; row < 8; row++)
        {
            for (int x = 0; x < 16; x++)
            {
                assertEquals(row * 64 + x, target.getFloat((row * 24 + x) * 4), "row " + row + " x " + x);
            }
            assertEquals(0f, target.getFloat((row * 24 + 16) * 4), "gap after row " + row);
        }
        target.clear();
        final ByteBuffer before = ByteBuffer.allocateDirect(target.capacity());
        before.put(target.duplicate()).flip();
        assertFalse(from.copyRows(src, shorter, dst));
        assertEquals(before, target);
    }
}
