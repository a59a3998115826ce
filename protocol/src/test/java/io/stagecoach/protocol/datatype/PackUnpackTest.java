package io.stagecoach.protocol.datatype;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.Random;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class PackUnpackTest
{
    private static final int NX = 40;
    private static final int NY = 24;
    private static final int NZ = 16;

    @Test
    void shouldPackHaloFacesLikeNaiveLoops()
    {
        final float[] field = new float[NX * NY * NZ];
        for (int i = 0; i < field.length; i++)
        {
            field[i] = i;
        }
        final ByteBuffer typed = ByteBuffer.allocateDirect(field.length * 4).order(ByteOrder.nativeOrder());
        typed.asFloatBuffer().put(field);

        final float[] xFace = new float[NY * NZ];
        for (int k = 0; k < NZ; k++)
        {
            for (int j = 0; j < NY; j++)
            {
                xFace[k * NY + j] = field[(k * NY + j) * NX + 1];
            }
        }
        assertArrayEquals(xFace, pack(Datatype.vector(NY * NZ, 1, NX, Datatype.FLOAT), typed, 4));

        final float[] yFace = new float[NX * NZ];
        for (int k = 0; k < NZ; k++)
        {
            System.arraycopy(field, (k * NY + 2) * NX, yFace, k * NX, NX);
        }
        assertArrayEquals(yFace, pack(Datatype.vector(NZ, NX, NX * NY, Datatype.FLOAT), typed, 2 * NX * 4));

        final float[] zFace = Arrays.copyOfRange(field, 3 * NX * NY, 4 * NX * NY);
        assertArrayEquals(zFace, pack(Datatype.contiguous(NX * NY, Datatype.FLOAT), typed, 3 * NX * NY * 4));
    }

    @Test
    void shouldUnpackHaloFaceIntoGhostPlaneOnly()
    {
        final Datatype face = Datatype.vector(NY * NZ, 1, NX, Datatype.FLOAT).commit();
        final ByteBuffer packed = ByteBuffer.allocateDirect(NY * NZ * 4).order(ByteOrder.nativeOrder());
        for (int i = 0; i < NY * NZ; i++)
        {
            packed.putFloat(i * 4, -i - 1);
        }
        final ByteBuffer field = ByteBuffer.allocateDirect(NX * NY * NZ * 4).order(ByteOrder.nativeOrder());
        face.compiled().unpack(packed, 0, 1, 0, face.size(), field, 0);
        for (int i = 0; i < NX * NY * NZ; i++)
        {
            assertEquals(i % NX == 0 ? -(i / NX) - 1 : 0f, field.getFloat(i * 4), "element " + i);
        }
    }

    @Test
    void shouldPackThroughRawAddressesHeapBuffersAndAgronaBuffers()
    {
        final Datatype type = Datatype.indexed(new int[]{ 3, 1, 2 }, new int[]{ 5, 0, -2 }, Datatype.SHORT)
            .resized(-4, 24).commit();
        final CompiledType compiled = type.compiled();
        final int count = 3;
        final int base = 8;
        final byte[] typed = new byte[base + 80];
        new Random(7).nextBytes(typed);
        final int total = (int)(count * type.size());
        final byte[] expected = new byte[total];
        compiled.pack(typed, base, count, 0, total, expected, 0);

        final ByteBuffer direct = ByteBuffer.allocateDirect(typed.length);
        direct.put(0, typed, 0, typed.length);
        final ByteBuffer packedDirect = ByteBuffer.allocateDirect(total);
        compiled.pack(direct, base, count, 0, total, packedDirect, 0);
        assertArrayEquals(expected, bytes(packedDirect, total));

        final ByteBuffer heapPacked = ByteBuffer.allocate(total + 2);
        compiled.pack(ByteBuffer.wrap(typed), base, count, 0, total, heapPacked, 2);
        assertArrayEquals(expected, Arrays.copyOfRange(heapPacked.array(), 2, total + 2));

        final UnsafeBuffer agronaPacked = new UnsafeBuffer(ByteBuffer.allocateDirect(total));
        compiled.pack(new UnsafeBuffer(typed), base, count, 0, total, agronaPacked, 0);
        final byte[] agronaBytes = new byte[total];
        agronaPacked.getBytes(0, agronaBytes);
        assertArrayEquals(expected, agronaBytes);

        final ByteBuffer rawPacked = ByteBuffer.allocateDirect(total);
        compiled.pack(Memory.directAddress(direct) + base, count, 0, total, Memory.directAddress(rawPacked));
        assertArrayEquals(expected, bytes(rawPacked, total));

        final ByteBuffer restored = ByteBuffer.allocateDirect(typed.length);
        compiled.unpack(Memory.directAddress(rawPacked), count, 0, total, Memory.directAddress(restored) + base);
        final UnsafeBuffer agronaRestored = new UnsafeBuffer(new byte[typed.length]);
        compiled.unpack(agronaPacked, 0, count, 0, total, agronaRestored, base);
        final byte[] heapRestored = new byte[typed.length];
        compiled.unpack(ByteBuffer.wrap(expected), 0, count, 0, total, ByteBuffer.wrap(heapRestored), base);
        compiled.forEachSegment(count, 0, total, (d, p, l) ->
        {
            for (long b = base + d; b < base + d + l; b++)
            {
                assertEquals(typed[(int)b], restored.get((int)b));
                assertEquals(typed[(int)b], agronaRestored.getByte((int)b));
                assertEquals(typed[(int)b], heapRestored[(int)b]);
            }
        });
    }

    @Test
    void shouldRefuseReadOnlyDestinationAndShortBuffers()
    {
        final CompiledType compiled = Datatype.vector(2, 1, 4, Datatype.INT).commit().compiled();
        final ByteBuffer typed = ByteBuffer.allocateDirect(20);
        assertThrows(IllegalArgumentException.class,
            () -> compiled.pack(typed, 0, 1, 0, 8, ByteBuffer.allocateDirect(8).asReadOnlyBuffer(), 0));
        assertThrows(IndexOutOfBoundsException.class,
            () -> compiled.pack(ByteBuffer.allocateDirect(19), 0, 1, 0, 8, ByteBuffer.allocateDirect(8), 0));
        assertThrows(IndexOutOfBoundsException.class,
            () -> compiled.unpack(new UnsafeBuffer(new byte[7]), 0, 1, 0, 8, new UnsafeBuffer(new byte[20]), 0));
    }

    @Test
    void shouldUnpackShortMessagePartiallyWithCountAndElements()
    {
        final Datatype pair = Datatype.struct(new int[]{ 1, 1 }, new long[]{ 0, 8 },
            new Datatype[]{ Datatype.INT, Datatype.DOUBLE }).commit();
        assertEquals(12, pair.size());
        assertEquals(16, pair.extent());
        final long received = 12 + 4;
        assertEquals(Datatype.UNDEFINED, pair.countOf(received));
        assertEquals(3, pair.elementsOf(received));
        assertEquals(2, pair.countOf(24));
        assertEquals(4, pair.elementsOf(24));
        assertEquals(Datatype.UNDEFINED, pair.elementsOf(14));
        assertEquals(0, pair.countOf(0));
        pair.checkReceive(4, received, "tag=3");

        final byte[] message = new byte[(int)received];
        Arrays.fill(message, (byte)7);
        final byte[] buffer = new byte[4 * 16];
        Arrays.fill(buffer, (byte)-1);
        pair.compiled().unpack(message, 0, 4, 0, received, buffer, 0);
        for (int b = 0; b < buffer.length; b++)
        {
            final boolean written = b < 4 || (b >= 8 && b < 20);
            assertEquals(written ? 7 : -1, buffer[b], "byte " + b);
        }
        assertEquals(0, Datatype.contiguous(0, Datatype.INT).countOf(0));
        assertEquals(Datatype.UNDEFINED, Datatype.contiguous(0, Datatype.INT).countOf(4));
    }

    @Test
    void shouldPackChunksOfLargeVectorIndependently()
    {
        final Datatype type = Datatype.vector(1000, 3, 5, Datatype.SHORT).commit();
        final int count = 3;
        final byte[] typed = new byte[(int)(count * type.extent())];
        new Random(11).nextBytes(typed);
        final int total = (int)(count * type.size());
        final byte[] whole = new byte[total];
        type.compiled().pack(typed, 0, count, 0, total, whole, 0);
        for (final int chunk : new int[]{ 1, 5, 6, 7, 4095, 4096, 4097 })
        {
            final byte[] chunked = new byte[total];
            for (int at = total - chunk > 0 ? ((total - 1) / chunk) * chunk : 0; at >= 0; at -= chunk)
            {
                final int length = Math.min(chunk, total - at);
                type.compiled().pack(typed, 0, count, at, length, chunked, at);
            }
            assertArrayEquals(whole, chunked, "chunk " + chunk);
        }
    }

    private static float[] pack(final Datatype type, final ByteBuffer typed, final int offsetBytes)
    {
        final CompiledType compiled = type.commit().compiled();
        final ByteBuffer packed = ByteBuffer.allocateDirect((int)compiled.size()).order(ByteOrder.nativeOrder());
        compiled.pack(typed, offsetBytes, 1, 0, compiled.size(), packed, 0);
        final float[] values = new float[(int)compiled.size() / 4];
        packed.asFloatBuffer().get(values);
        return values;
    }

    private static byte[] bytes(final ByteBuffer buffer, final int length)
    {
        final byte[] bytes = new byte[length];
        buffer.get(0, bytes, 0, length);
        return bytes;
    }
}
