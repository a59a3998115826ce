package io.stagecoach.protocol.datatype;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Random datatypes against the brute-force {@link ReferenceTypeMap}. The seed is printed; rerun one with
 * {@code -Dstagecoach.datatype.seed=<seed>}, and change the number of types with
 * {@code -Dstagecoach.datatype.types=<n>}.
 */
class DatatypePropertyTest
{
    private static final long SEED = Long.getLong("stagecoach.datatype.seed", System.nanoTime());
    private static final int TYPES = Integer.getInteger("stagecoach.datatype.types", 400);
    private static final byte POISON = (byte)0xA5;

    @BeforeAll
    static void printSeed()
    {
        System.out.println("DatatypePropertyTest seed=" + SEED + " (rerun with -Dstagecoach.datatype.seed=" + SEED +
            ")");
    }

    @Test
    void shouldMatchReferenceQueriesAndSignatures()
    {
        final RandomTypes types = new RandomTypes(SEED);
        for (int i = 0; i < TYPES; i++)
        {
            final RandomTypes.Generated generated = types.next(3 + i % 2);
            final Datatype type = generated.type();
            final ReferenceTypeMap reference = generated.reference();
            final String what = "type " + i + " seed " + SEED + ": " + type;
            assertEquals(reference.size(), type.size(), what);
            assertEquals(reference.lb, type.lb(), what);
            assertEquals(reference.ub, type.ub(), what);
            assertEquals(reference.extent(), type.extent(), what);
            assertEquals(reference.trueLb(), type.trueLb(), what);
            assertEquals(reference.trueUb() - reference.trueLb(), type.trueExtent(), what);
            assertEquals(reference.entries.size(), type.elementCount(), what);
            final TypeSignature signature = type.signature();
            assertEquals(reference.signatureHash(1), signature.hash(), what);
            assertEquals(reference.entries.size(), signature.length(), what);
            assertEquals(reference.size(), signature.sizeBytes(), what);
            assertEquals(reference.signatureHash(3), type.signature(3).hash(), what);
            assertEquals(runs(reference), runs(signature), what);
            final int n = (int)Math.min(signature.length(), 7 + i % 13);
            final ReferenceTypeMap cut = ReferenceTypeMap.empty();
            cut.entries.addAll(reference.entries.subList(0, n));
            assertEquals(cut.signatureHash(1), signature.prefix(n).hash(), what);
            assertTrue(signature.prefix(n).isPrefixOf(type.signature(2)), what);
        }
    }

    @Test
    void shouldExpandCompiledFormToReferenceSegments()
    {
        final RandomTypes types = new RandomTypes(SEED + 1);
        final Random random = new Random(SEED + 1);
        for (int i = 0; i < TYPES; i++)
        {
            final RandomTypes.Generated generated = types.next(3);
            final CompiledType compiled = generated.type().commit().compiled();
            final ReferenceTypeMap reference = generated.reference();
            final int count = 1 + random.nextInt(3);
            final long total = count * reference.size();
            final String what = "type " + i + " seed " + SEED + ": " + compiled.describe();
            assertSegmentsEqual(reference.segments(count, 0, total), compiled, count, 0, total, what);
            if (total > 0)
            {
                final long from = random.nextInt((int)total);
                final long to = from + random.nextInt((int)(total - from) + 1);
                assertSegmentsEqual(reference.segments(count, from, to), compiled, count, from, to - from, what);
            }
        }
    }

    @Test
    void shouldPackUnpackAndChunkLikeTheReference()
    {
        final RandomTypes types = new RandomTypes(SEED + 2);
        final Random random = new Random(SEED + 2);
        int unpackChecked = 0;
        for (int i = 0; i < TYPES; i++)
        {
            final RandomTypes.Generated generated = types.next(3 + i % 2);
            final CompiledType compiled = generated.type().commit().compiled();
            final ReferenceTypeMap reference = generated.reference();
            final int count = 1 + random.nextInt(3);
            final String what = "type " + i + " seed " + SEED + ": " + compiled.describe();
            if (checkPackAndUnpack(compiled, reference, count, random, what))
            {
                unpackChecked++;
            }
        }
        assertTrue(unpackChecked > TYPES / 3, "too few types without overlapping elements: " + unpackChecked);
    }

    private static boolean checkPackAndUnpack(final CompiledType compiled, final ReferenceTypeMap reference,
        final int count, final Random random, final String what)
    {
        final long low = Math.min(0, compiled.dataLowBytes(count));
        final int base = (int)-low + random.nextInt(4);
        final int length = (int)(compiled.dataHighBytes(count) - low) + 8;
        final byte[] typed = new byte[Math.max(length, base + 1)];
        random.nextBytes(typed);
        final int total = (int)(count * reference.size());
        final byte[] expected = new byte[total];
        final BitSet covered = new BitSet(typed.length);
        boolean overlapping = false;
        for (final long[] segment : reference.segments(count, 0, total))
        {
            for (int b = 0; b < segment[2]; b++)
            {
                final int at = (int)(base + segment[0] + b);
                expected[(int)segment[1] + b] = typed[at];
                overlapping |= covered.get(at);
                covered.set(at);
            }
        }
        final byte[] packed = new byte[total + 3];
        Arrays.fill(packed, POISON);
        compiled.pack(typed, base, count, 0, total, packed, 3);
        assertArrayEquals(expected, Arrays.copyOfRange(packed, 3, total + 3), what);

        final byte[] chunked = new byte[total];
        for (final long[] chunk : shuffledChunks(total, random))
        {
            final byte[] piece = new byte[(int)chunk[1]];
            compiled.pack(typed, base, count, chunk[0], chunk[1], piece, 0);
            System.arraycopy(piece, 0, chunked, (int)chunk[0], piece.length);
        }
        assertArrayEquals(expected, chunked, "chunked pack of " + what);
        if (overlapping)
        {
            return false;
        }

        final byte[] restored = new byte[typed.length];
        Arrays.fill(restored, POISON);
        compiled.unpack(expected, 0, count, 0, total, restored, base);
        assertUnpacked(typed, restored, covered, what);

        final byte[] restoredInChunks = new byte[typed.length];
        Arrays.fill(restoredInChunks, POISON);
        for (final long[] chunk : shuffledChunks(total, random))
        {
            final byte[] piece = Arrays.copyOfRange(expected, (int)chunk[0], (int)(chunk[0] + chunk[1]));
            compiled.unpack(piece, 0, count, chunk[0], chunk[1], restoredInChunks, base);
        }
        assertUnpacked(typed, restoredInChunks, covered, "chunked unpack of " + what);
        return true;
    }

    private static void assertUnpacked(final byte[] typed, final byte[] restored, final BitSet covered,
        final String what)
    {
        for (int at = 0; at < typed.length; at++)
        {
            assertEquals(covered.get(at) ? typed[at] : POISON, restored[at], "byte " + at + " of " + what);
        }
    }

    private static List<long[]> shuffledChunks(final int total, final Random random)
    {
        final List<long[]> chunks = new ArrayList<>();
        int at = 0;
        while (at < total)
        {
            final int length = Math.min(total - at, 1 + random.nextInt(Math.max(1, total / 3 + 1)));
            chunks.add(new long[]{ at, length });
            at += length;
        }
        java.util.Collections.shuffle(chunks, random);
        return chunks;
    }

    private static void assertSegmentsEqual(final List<long[]> expected, final CompiledType compiled,
        final long count, final long from, final long length, final String what)
    {
        final List<long[]> actual = new ArrayList<>();
        compiled.forEachSegment(count, from, length, (d, p, l) -> actual.add(new long[]{ d, p, l }));
        assertEquals(text(expected), text(actual), what);
    }

    private static String text(final List<long[]> segments)
    {
        final StringBuilder builder = new StringBuilder();
        for (final long[] segment : segments)
        {
            builder.append(Arrays.toString(segment)).append('\n');
        }
        return builder.toString();
    }

    private static List<String> runs(final ReferenceTypeMap reference)
    {
        final List<String> runs = new ArrayList<>();
        int type = -1;
        long length = 0;
        for (final long[] entry : reference.entries)
        {
            if (entry[1] != type)
            {
                if (type >= 0)
                {
                    runs.add(BasicType.of(type) + "x" + length);
                }
                type = (int)entry[1];
                length = 0;
            }
            length++;
        }
        if (type >= 0)
        {
            runs.add(BasicType.of(type) + "x" + length);
        }
        return runs;
    }

    private static List<String> runs(final TypeSignature signature)
    {
        final List<String> runs = new ArrayList<>();
        signature.forEachRun((type, count) -> runs.add(type + "x" + count));
        return runs;
    }
}
