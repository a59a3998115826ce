package io.stagecoach.protocol.datatype;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import io.stagecoach.protocol.ErrorClass;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class LayoutCodecTest
{
    @Test
    void shouldPackTheSameBytesAfterARoundTrip()
    {
        final Datatype row = Datatype.vector(16, 16, 256, Datatype.FLOAT).commit();
        final Datatype column = Datatype.vector(256, 1, 16, Datatype.FLOAT).commit();
        final Datatype mixed = Datatype.struct(new int[]{ 2, 1, 3 }, new long[]{ 0, 24, 40 },
            new Datatype[]{ Datatype.DOUBLE, row, Datatype.INT }).commit();
        final Datatype scattered = Datatype.indexed(new int[]{ 3, 1, 4 }, new int[]{ 9, 0, 20 }, mixed).commit();
        for (final Datatype type : new Datatype[]{ row, column, mixed, scattered })
        {
            final CompiledType original = type.compiled();
            final CompiledType copy = roundTrip(original);
            assertEquals(original.size(), copy.size(), type.toString());
            assertEquals(original.extent(), copy.extent(), type.toString());
            assertEquals(original.minBlockBytes(), copy.minBlockBytes(), type.toString());
            assertArrayEquals(packed(original, 3), packed(copy, 3), type.toString());
        }
        assertEquals(64, row.compiled().minBlockBytes());
        assertEquals(4, column.compiled().minBlockBytes());
    }

    @Test
    void shouldRejectMalformedLayoutsNamingTheField()
    {
        final CompiledType row = Datatype.vector(16, 16, 256, Datatype.FLOAT).commit().compiled();
        final UnsafeBuffer bytes = new UnsafeBuffer(new byte[LayoutCodec.lengthOf(row)]);
        final int length = LayoutCodec.write(row, bytes, 0);

        bytes.putLong(0, 7);
        assertTrue(rejection(bytes, length).contains("version 7"));
        bytes.putLong(0, LayoutCodec.VERSION);

        final int childField = LayoutCodec.HEADER_BYTES + CompiledType.CHILD * Long.BYTES;
        final long child = bytes.getLong(childField);
        bytes.putLong(childField, 0);
        assertTrue(rejection(bytes, length).contains("vector node 0 names child 0"), rejection(bytes, length));
        bytes.putLong(childField, child);

        assertTrue(rejection(bytes, length - 8).contains("code of"), rejection(bytes, length - 8));
        assertTrue(rejection(bytes, 16).contains("below the header"));
        assertEquals(row.size(), LayoutCodec.read(bytes, 0, length, "row").size());
    }

    private static String rejection(final UnsafeBuffer bytes, final int length)
    {
        final DatatypeException ex = assertThrows(DatatypeException.class,
            () -> LayoutCodec.read(bytes, 0, length, "row"));
        assertEquals(ErrorClass.ARG, ex.errorClass(), ex.getMessage());
        return ex.getMessage();
    }

    private static CompiledType roundTrip(final CompiledType type)
    {
        final UnsafeBuffer bytes = new UnsafeBuffer(new byte[LayoutCodec.lengthOf(type) + 16]);
        final int length = LayoutCodec.write(type, bytes, 8);
        assertEquals(LayoutCodec.lengthOf(type), length);
        return LayoutCodec.read(bytes, 8, length, "copy of " + type);
    }

    private static byte[] packed(final CompiledType type, final int count)
    {
        final int span = (int)(type.extent() * count + 4096);
        final ByteBuffer source = ByteBuffer.allocateDirect(span).order(ByteOrder.nativeOrder());
        for (int i = 0; i < span; i++)
        {
            source.put(i, (byte)(i * 31 + 7));
        }
        final ByteBuffer out = ByteBuffer.allocateDirect((int)(type.size() * count)).order(ByteOrder.nativeOrder());
        type.pack(source, 0, count, 0, type.size() * count, out, 0);
        final byte[] bytes = new byte[out.capacity()];
        out.get(0, bytes);
        return bytes;
    }
}
