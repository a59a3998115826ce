package io.stagecoach.protocol.datatype;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TypeSignatureTest
{
    @Test
    void shouldBeEqualForEqualSequencesBuiltDifferently()
    {
        final TypeSignature contiguous = Datatype.contiguous(6, Datatype.INT).signature();
        final TypeSignature vector = Datatype.vector(3, 2, 7, Datatype.INT).signature();
        final TypeSignature struct = Datatype.struct(new int[]{ 4, 2 }, new long[]{ 100, -50 },
            new Datatype[]{ Datatype.INT, Datatype.INT }).signature();
        final TypeSignature repeated = Datatype.INT.signature(6);
        assertEquals(contiguous, vector);
        assertEquals(contiguous, struct);
        assertEquals(contiguous, repeated);
        assertEquals(contiguous.hashCode(), repeated.hashCode());
        assertEquals(6, contiguous.length());
        assertEquals(24, contiguous.sizeBytes());
    }

    @Test
    void shouldDifferForDifferentTypesOrOrder()
    {
        assertNotEquals(Datatype.INT.signature(), Datatype.FLOAT.signature());
        final TypeSignature intThenDouble = pair(Datatype.INT, Datatype.DOUBLE).signature();
        final TypeSignature doubleThenInt = pair(Datatype.DOUBLE, Datatype.INT).signature();
        assertNotEquals(intThenDouble, doubleThenInt);
        assertNotEquals(Datatype.contiguous(4, Datatype.BYTE).signature(), Datatype.INT.signature());
    }

    @Test
    void shouldCutPrefixesWithoutExpanding()
    {
        final Datatype mixed = Datatype.vector(1_000_000_000, 1, 3, pair(Datatype.INT, Datatype.DOUBLE));
        final TypeSignature signature = mixed.signature(1000);
        assertEquals(2_000_000_000_000L, signature.length());
        final TypeSignature prefix = signature.prefix(1_234_567_891L);
        assertEquals(1_234_567_891L, prefix.length());
        assertEquals(617_283_946L * 4 + 617_283_945L * 8, prefix.sizeBytes());
        final TypeSignature expected = pair(Datatype.INT, Datatype.DOUBLE).signature(617_283_945L)
            .repeat(1).prefix(1_234_567_890L);
        assertEquals(expected.length() + 1, prefix.length());
        assertTrue(prefix.isPrefixOf(signature));
        assertFalse(signature.prefix(3).isPrefixOf(Datatype.contiguous(3, Datatype.INT).signature()));
    }

    @Test
    void shouldTreatPrefixOfRepeatAsRepeatPlusPartial()
    {
        final Datatype triple = Datatype.struct(new int[]{ 1, 2 }, new long[]{ 0, 8 },
            new Datatype[]{ Datatype.SHORT, Datatype.LONG });
        final TypeSignature five = triple.signature(3).prefix(5);
        final TypeSignature built = Datatype.struct(new int[]{ 1, 1, 1 }, new long[]{ 0, 100, 200 },
            new Datatype[]{ triple, Datatype.SHORT, Datatype.LONG }).signature();
        assertEquals(built, five);
        assertEquals(Datatype.SHORT.signature(), five.prefix(1));
        assertEquals(0, five.prefix(0).length());
        assertEquals(Datatype.BYTE.signature(0), five.prefix(0));
    }

    @Test
    void shouldListRunsInOrder()
    {
        final Datatype type = Datatype.struct(new int[]{ 2, 3, 1 }, new long[]{ 0, 8, 20 },
            new Datatype[]{ Datatype.INT, Datatype.INT, Datatype.CHAR });
        final List<String> runs = new ArrayList<>();
        type.signature(2).forEachRun((basic, count) -> runs.add(basic + "x" + count));
        assertEquals(List.of("INTx5", "CHARx1", "INTx5", "CHARx1"), runs);
    }

    @Test
    void shouldEncodeAndDecode()
    {
        final TypeSignature signature = Datatype.vector(3, 2, 4, Datatype.DOUBLE).signature(5);
        final long[] words = new long[TypeSignature.ENCODED_LONGS + 1];
        signature.encode(words, 1);
        final TypeSignature decoded = TypeSignature.decode(words, 1);
        assertEquals(signature, decoded);
        assertFalse(decoded.hasRunLengthForm());
        assertTrue(decoded.isPrefixOf(signature));
        assertThrows(DatatypeException.class, () -> decoded.prefix(1));
        final long[] invalid = signature.encode();
        invalid[1] = -1;
        assertThrows(DatatypeException.class, () -> TypeSignature.decode(invalid, 0));
    }

    @Test
    void shouldCheckIncomingSignatureAgainstReceiveType()
    {
        final Datatype receive = Datatype.contiguous(4, pair(Datatype.INT, Datatype.FLOAT));
        receive.checkSignature(2, pair(Datatype.INT, Datatype.FLOAT).signature(5), "tag=1");
        receive.checkSignature(1, Datatype.contiguous(3, pair(Datatype.INT, Datatype.FLOAT)).signature()
            .repeat(1).prefix(5), "tag=1");
        final SignatureMismatchException mismatch = assertThrows(SignatureMismatchException.class,
            () -> receive.checkSignature(1, Datatype.INT.signature(2), "tag=1, source=3"));
        assertTrue(mismatch.getMessage().contains("is not a prefix"), mismatch.getMessage());
        assertTrue(mismatch.getMessage().contains("tag=1, source=3"), mismatch.getMessage());
        assertThrows(TruncationException.class,
            () -> receive.checkSignature(1, pair(Datatype.INT, Datatype.FLOAT).signature(5), "tag=1"));
    }

    private static Datatype pair(final Datatype first, final Datatype second)
    {
        return Datatype.struct(new int[]{ 1, 1 }, new long[]{ 0, 8 }, new Datatype[]{ first, second });
    }
}
