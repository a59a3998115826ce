package io.stagecoach.protocol.datatype;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Random;

import org.junit.jupiter.api.Test;

/**
 * The host pack through off-heap buffers, on the path {@value NativeCopier#PATH_PROPERTY} selects (the build
 * runs the datatype tests once per path), against the reference type map and against plain byte loops.
 */
class HostPackPathsTest
{
    private static final long SEED = Long.getLong("stagecoach.datatype.seed", System.nanoTime());
    private static final byte POISON = (byte)0xA5;

    @Test
    void shouldLoadTheNativePackerWhenItWasBuilt()
    {
        final String path = System.getProperty(NativeCopier.PATH_PROPERTY, "auto");
        final boolean built = NativeCopier.class.getResource("linux-" + System.getProperty("os.arch") +
            "/libstagecoach-host-pack.so") != null;
        assumeTrue(built && !path.equals("java"), "native host packer not built or disabled");
        assertNull(NativeCopier.LOAD_FAILURE);
        assertEquals(path.equals("native"), NativeCopier.ALWAYS);
        assertEquals(path.equals("auto"), NativeCopier.FOR_ROWS);
    }

    @Test
    void shouldCopyStridedRowsNativelyLeavingGapsUntouched()
    {
        assumeTrue(NativeCopier.LOAD_FAILURE == null, () -> NativeCopier.LOAD_FAILURE);
        final Random random = new Random(SEED);
        for (int i = 0; i < 200; i++)
        {
            final int lengthBytes = 1 + random.nextInt(1100);
            final int n = random.nextInt(6);
            final int srcStride = lengthBytes + random.nextInt(300);
            final int dstStride = lengthBytes + random.nextInt(3) * random.nextInt(50);
            final byte[] src = new byte[srcStride * n + 1];
            random.nextBytes(src);
            final byte[] expected = new byte[dstStride * n + 1];
            Arrays.fill(expected, POISON);
            for (int e = 0; e < n; e++)
            {
                System.arraycopy(src, e * srcStride, expected, 1 + e * dstStride, lengthBytes);
            }
            final String what = "seed " + SEED + " row " + lengthBytes + " x " + n + " strides " + srcStride +
                "/" + dstStride;

            final byte[] onHeap = new byte[expected.length];
            Arrays.fill(onHeap, POISON);
            NativeCopier.gather(src, Memory.BYTE_ARRAY_BASE_OFFSET, srcStride, onHeap,
                Memory.BYTE_ARRAY_BASE_OFFSET + 1, dstStride, lengthBytes, n);
            assertArrayEquals(expected, onHeap, what);

            final ByteBuffer srcBuffer = direct(src);
            final ByteBuffer dstBuffer = direct(filled(expected.length));
            NativeCopier.gather(null, Memory.directAddress(srcBuffer), srcStride, null,
                Memory.directAddress(dstBuffer) + 1, dstStride, lengthBytes, n);
            final byte[] offHeap = new byte[expected.length];
            dstBuffer.get(0, offHeap);
            assertArrayEquals(expected, offHeap, what);
        }
    }

    @Test
    void shouldPackRandomTypesOffHeapLikeTheReference()
    {
        System.out.println("HostPackPathsTest seed=" + SEED + " path=" +
            System.getProperty(NativeCopier.PATH_PROPERTY, "auto"));
        final RandomTypes types = new RandomTypes(SEED);
        final Random random = new Random(SEED);
        for (int i = 0; i < 300; i++)
        {
            final RandomTypes.Generated generated = types.next(2 + i % 3);
            final CompiledType compiled = generated.type().commit().compiled();
            final int count = 1 + random.nextInt(3);
            checkPack(compiled, generated.reference(), count, random,
                "type " + i + " seed " + SEED + ": " + compiled.describe());
        }
    }

    private static void checkPack(final CompiledType compiled, final ReferenceTypeMap reference, final int count,
        final Random random, final String what)
    {
        final long low = Math.min(0, compiled.dataLowBytes(count));
        final int base = (int)-low + random.nextInt(4);
        final byte[] typed = new byte[Math.max((int)(compiled.dataHighBytes(count) - low) + 8, base + 1)];
        random.nextBytes(typed);
        final int total = (int)(count * reference.size());
        final byte[] expected = filled(total + 3);
        for (final long[] segment : reference.segments(count, 0, total))
        {
            System.arraycopy(typed, (int)(base + segment[0]), expected, 3 + (int)segment[1], (int)segment[2]);
        }
        final ByteBuffer packed = direct(filled(total + 3));
        compiled.pack(direct(typed), base, count, 0, total, packed, 3);
        final byte[] actual = new byte[total + 3];
        packed.get(0, actual);
        assertArrayEquals(expected, actual, what);

        final int from = total == 0 ? 0 : random.nextInt(total);
        final int length = random.nextInt(total - from + 1);
        final ByteBuffer chunk = direct(filled(length));
        compiled.pack(direct(typed), base, count, from, length, chunk, 0);
        final byte[] chunkBytes = new byte[length];
        chunk.get(0, chunkBytes);
        assertArrayEquals(Arrays.copyOfRange(expected, 3 + from, 3 + from + length), chunkBytes,
            what + " chunk " + from + "+" + length);
    }

    private static byte[] filled(final int length)
    {
        final byte[] bytes = new byte[length];
        Arrays.fill(bytes, POISON);
        return bytes;
    }

    private static ByteBuffer direct(final byte[] bytes)
    {
        final ByteBuffer buffer = ByteBuffer.allocateDirect(Math.max(bytes.length, 1));
        buffer.put(0, bytes);
        return buffer;
    }
}
