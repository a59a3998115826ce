package io.stagecoach.protocol.datatype;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Random;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.fail;

class TranscodeTest
{
    private static final long SEED = Long.getLong("stagecoach.datatype.seed", System.nanoTime());
    private static final byte POISON = (byte)0xA5;

    @Test
    void shouldCopyBetweenRandomLayoutsAsAPackThenAnUnpackDoes()
    {
        System.out.println("TranscodeTest seed=" + SEED);
        final RandomTypes types = new RandomTypes(SEED);
        final Random random = new Random(SEED);
        for (int i = 0; i < 300; i++)
        {
            final CompiledType from = types.next(1 + i % 3).type().commit().compiled();
            final CompiledType to = types.next(1 + (i / 3) % 3).type().commit().compiled();
            if (from.size() == 0 || to.size() == 0)
            {
                continue;
            }
            final long count = 1 + random.nextInt(3);
            final long packedBytes = count * from.size();
            final long toCount = (packedBytes + to.size() - 1) / to.size();
            final long offset = random.nextInt(3) == 0 ? 0 : (long)(random.nextDouble() * packedBytes);
            final long length = random.nextInt(3) == 0 ? packedBytes - offset :
                (long)(random.nextDouble() * (packedBytes - offset));
            check(from, count, to, toCount, offset, length, random,
                "pair " + i + " seed " + SEED + " range [" + offset + ", +" + length + ")\n" + from.describe() +
                to.describe());
        }
    }

    @Test
    void shouldCopyAColumnIntoARowOfAnotherMatrixAndBack()
    {
        final CompiledType column = Datatype.vector(100, 1, 7, Datatype.INT).commit().compiled();
        final CompiledType pairs = Datatype.vector(50, 2, 5, Datatype.INT).commit().compiled();
        check(column, 3, pairs, 6, 0, 1200, new Random(1), "column to pairs");
        check(pairs, 6, column, 3, 17, 1000, new Random(2), "pairs to column, unaligned range");
        check(column, 1, Datatype.INT.compiled(), 100, 4, 392, new Random(3), "column to contiguous");
        check(Datatype.INT.compiled(), 100, column, 1, 0, 400, new Random(4), "contiguous to column");
    }

    @Test
    void shouldNameARangeBeyondEitherPackedStream()
    {
        final CompiledType column = Datatype.vector(10, 1, 3, Datatype.INT).commit().compiled();
        final CompiledType row = Datatype.contiguous(8, Datatype.INT).commit().compiled();
        final IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
            () -> column.transcode(1 << 20, 1, 0, 40, row, 1 << 21, 1));
        assertEquals("packed range [0, 40) exceeds the 32 packed bytes of 1 x " + row.toString()
            .substring("CompiledType{".length(), row.toString().indexOf(", nodes")), refused.getMessage());
    }

    private static void check(final CompiledType from, final long count, final CompiledType to, final long toCount,
        final long offset, final long length, final Random random, final String what)
    {
        final long fromLow = Math.min(0, from.dataLowBytes(count));
        final int fromBytes = (int)(Math.max(from.dataHighBytes(count), 0) - fromLow) + 16;
        final long toLow = Math.min(0, to.dataLowBytes(toCount));
        final int toBytes = (int)(Math.max(to.dataHighBytes(toCount), 0) - toLow) + 16;
        final ByteBuffer source = ByteBuffer.allocateDirect(fromBytes);
        final byte[] values = new byte[fromBytes];
        random.nextBytes(values);
        source.put(0, values);
        final long sourceBase = Memory.directAddress(source) + 8 - fromLow;

        final ByteBuffer expected = poisoned(toBytes);
        final ByteBuffer packed = ByteBuffer.allocateDirect((int)Math.max(1, length));
        from.pack(sourceBase, count, offset, length, Memory.directAddress(packed));
        to.unpack(Memory.directAddress(packed), toCount, offset, length, Memory.directAddress(expected) + 8 - toLow);

        final ByteBuffer actual = poisoned(toBytes);
        from.transcode(sourceBase, count, offset, length, to, Memory.directAddress(actual) + 8 - toLow, toCount);
        final int mismatch = expected.mismatch(actual);
        if (mismatch != -1)
        {
            fail(what + ": first difference at byte " + mismatch + " of " + toBytes);
        }
    }

    private static ByteBuffer poisoned(final int length)
    {
        final byte[] bytes = new byte[length];
        Arrays.fill(bytes, POISON);
        return ByteBuffer.allocateDirect(length).put(0, bytes);
    }
}
