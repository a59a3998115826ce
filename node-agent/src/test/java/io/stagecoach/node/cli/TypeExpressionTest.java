package io.stagecoach.node.cli;

import java.util.stream.Stream;

import io.stagecoach.protocol.datatype.Datatype;
import io.stagecoach.protocol.datatype.Distribution;
import io.stagecoach.protocol.datatype.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TypeExpressionTest
{
    static Stream<Arguments> expressions()
    {
        final Datatype vector = Datatype.vector(2, 1, 3, Datatype.INT);
        return Stream.of(
            Arguments.of("contiguous(3, double)", Datatype.contiguous(3, Datatype.DOUBLE)),
            Arguments.of("vector(4, 2, 8, float)", Datatype.vector(4, 2, 8, Datatype.FLOAT)),
            Arguments.of("hvector(3, 1, -24, long)", Datatype.hvector(3, 1, -24, Datatype.LONG)),
            Arguments.of("indexed([1,2],[0,5],double)",
                Datatype.indexed(new int[]{ 1, 2 }, new int[]{ 0, 5 }, Datatype.DOUBLE)),
            Arguments.of("hindexed([2, 1], [16, 0], short)",
                Datatype.hindexed(new int[]{ 2, 1 }, new long[]{ 16, 0 }, Datatype.SHORT)),
            Arguments.of("indexed_block(2, [0, 4, 9], char)",
                Datatype.indexedBlock(2, new int[]{ 0, 4, 9 }, Datatype.CHAR)),
            Arguments.of("hindexed_block(1, [8, 0], int)",
                Datatype.hindexedBlock(1, new long[]{ 8, 0 }, Datatype.INT)),
            Arguments.of("struct([1,2],[0,8],[int,double])", Datatype.struct(
                new int[]{ 1, 2 }, new long[]{ 0, 8 }, new Datatype[]{ Datatype.INT, Datatype.DOUBLE })),
            Arguments.of("subarray([128,128,128],[1,126,126],[126,1,1],C,float)", Datatype.subarray(
                new int[]{ 128, 128, 128 }, new int[]{ 1, 126, 126 }, new int[]{ 126, 1, 1 }, Order.C,
                Datatype.FLOAT)),
            Arguments.of("subarray([8,6],[2,3],[1,2],F,byte)", Datatype.subarray(
                new int[]{ 8, 6 }, new int[]{ 2, 3 }, new int[]{ 1, 2 }, Order.FORTRAN, Datatype.BYTE)),
            Arguments.of("darray(4, 1, [8,8], [block, cyclic(2)], [2,2], C, double)", Datatype.darray(
                4, 1, new int[]{ 8, 8 }, new Distribution[]{ Distribution.BLOCK, Distribution.CYCLIC },
                new int[]{ Datatype.DISTRIBUTE_DFLT_DARG, 2 }, new int[]{ 2, 2 }, Order.C, Datatype.DOUBLE)),
            Arguments.of("darray(2, 0, [10, 3], [cyclic, none], [2, 1], fortran, int)", Datatype.darray(
                2, 0, new int[]{ 10, 3 }, new Distribution[]{ Distribution.CYCLIC, Distribution.NONE },
                new int[]{ Datatype.DISTRIBUTE_DFLT_DARG, Datatype.DISTRIBUTE_DFLT_DARG }, new int[]{ 2, 1 },
                Order.FORTRAN, Datatype.INT)),
            Arguments.of("resized(vector(2,1,3,int), -4, 40)", vector.resized(-4, 40)),
            Arguments.of("dup(indexed([1,2],[0,5],double))",
                Datatype.indexed(new int[]{ 1, 2 }, new int[]{ 0, 5 }, Datatype.DOUBLE).dup()),
            Arguments.of("  VECTOR ( 2 ,1,\t3 , Int ) ", vector),
            Arguments.of("struct([1, 1], [0, 16], [vector(2, 1, 2, float), contiguous(2, boolean)])",
                Datatype.struct(new int[]{ 1, 1 }, new long[]{ 0, 16 },
                    new Datatype[]{
                        Datatype.vector(2, 1, 2, Datatype.FLOAT), Datatype.contiguous(2, Datatype.BOOLEAN) })),
            Arguments.of("indexed([], [], int)", Datatype.indexed(new int[0], new int[0], Datatype.INT)),
            Arguments.of("vector(3000000000, 1, 2, byte)", Datatype.vector(3_000_000_000L, 1, 2, Datatype.BYTE)),
            Arguments.of("subarray([5000000000], [10], [4999999990], C, byte)", Datatype.subarray(
                new long[]{ 5_000_000_000L }, new long[]{ 10 }, new long[]{ 4_999_999_990L }, Order.C,
                Datatype.BYTE)));
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @MethodSource("expressions")
    void shouldBuildTheDatatypeAnExpressionDescribes(final String expression, final Datatype expected)
    {
        final Datatype parsed = TypeExpression.parse(expression).commit();
        expected.commit();

        assertEquals(expected.toString(), parsed.toString());
        assertEquals(expected.size(), parsed.size());
        assertEquals(expected.extent(), parsed.extent());
        assertEquals(expected.lb(), parsed.lb());
        assertEquals(expected.trueLb(), parsed.trueLb());
        assertEquals(expected.trueExtent(), parsed.trueExtent());
        assertEquals(expected.signature(), parsed.signature());
        assertEquals(expected.compiled().describe(), parsed.compiled().describe());
    }

    @Test
    void shouldReturnPredefinedTypesForBasicNames()
    {
        assertSame(Datatype.DOUBLE, TypeExpression.parse("double"));
        assertSame(Datatype.PACKED, TypeExpression.parse(" PACKED "));
    }

    static Stream<Arguments> errors()
    {
        return Stream.of(
            Arguments.of("", 0, "expected a datatype but found the end of the expression"),
            Arguments.of("vector(4, 2 x, 8, float)", 12,
                "expected ',' before the stride of vector but found 'x, 8, float)'"),
            Arguments.of("vectr(4, 2, 8, float)", 0, "unknown constructor 'vectr'; expected one of contiguous, " +
                "vector, hvector, indexed, hindexed, indexed_block, hindexed_block, struct, subarray, darray, " +
                "resized, dup"),
            Arguments.of("flaot", 0, "unknown datatype 'flaot'; expected a basic type (boolean, byte, char, " +
                "double, float, int, long, packed, short) or a constructor (contiguous, vector, hvector, indexed, " +
                "hindexed, indexed_block, hindexed_block, struct, subarray, darray, resized, dup)"),
            Arguments.of("vector(4, 2, 8, float, 3)", 21,
                "expected ')' closing vector (it takes count, blocklength, stride, type) but found ', 3)'"),
            Arguments.of("vector(4, 2, 8", 14,
                "expected ',' before the type of vector but found the end of the expression"),
            Arguments.of("vector(4, 2, float, 8)", 13, "expected the stride (an integer) but found 'float, 8)'"),
            Arguments.of("indexed([1,2],[0],double)", 14,
                "indexed: the list of displacements has 1 element but the list before it has 2 elements"),
            Arguments.of("indexed([1,2;[0],double)", 12,
                "expected ',' or ']' in the list of block lengths but found ';[0],double)'"),
            Arguments.of("contiguous(99999999999999999999, int)", 11,
                "count 99999999999999999999 does not fit in 64 bits"),
            Arguments.of("darray(3000000000, 0, [4], [block], [2], C, int)", 7,
                "size 3000000000 is outside [-2147483648, 2147483647]"),
            Arguments.of("subarray([4],[2],[1],X,int)", 21, "expected the storage order (C or F) but found 'x'"),
            Arguments.of("darray(2,0,[4],[blocky],[2],C,int)", 16, "expected a distribution (block, cyclic, none, " +
                "block(k) or cyclic(k)) but found 'blocky'"),
            Arguments.of("int int", 4, "expected the end of the expression but found 'int'"),
            Arguments.of("vector", 6, "expected '(' after vector but found the end of the expression"),
            Arguments.of("struct([1],[0],[int, double])", 15,
                "struct: the list of types has 2 elements but the list before it has 1 element"));
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @MethodSource("errors")
    void shouldNameThePositionAndWhatWasExpected(final String expression, final int position, final String problem)
    {
        final TypeExpressionException ex =
            assertThrows(TypeExpressionException.class, () -> TypeExpression.parse(expression));

        assertEquals("at column " + (position + 1) + ": " + problem, ex.getMessage());
        assertEquals(position, ex.position());
        assertEquals(expression + "\n" + " ".repeat(position) + "^", ex.pointer());
    }

    @Test
    void shouldReadConstructorsNestedToTheLimitAndNoDeeper()
    {
        final int limit = TypeExpression.MAX_NESTING;
        assertEquals(4, TypeExpression.parse("dup(".repeat(limit) + "int" + ")".repeat(limit)).size());

        final String tooDeep = "dup(".repeat(limit + 1) + "int" + ")".repeat(limit + 1);
        final TypeExpressionException ex =
            assertThrows(TypeExpressionException.class, () -> TypeExpression.parse(tooDeep));
        assertEquals("at column " + (4 * limit + 1) + ": the expression nests constructors " + (limit + 1) +
            " deep, more than the limit of " + limit, ex.getMessage());
    }

    @Test
    void shouldCountNestingOfConstructorsOnlyWithoutRecursion()
    {
        assertEquals(0, TypeExpression.nestingOf("int"));
        assertEquals(2, TypeExpression.nestingOf("darray(2, 0, [4], [block(2)], [2], C, contiguous(2, int))"));
        assertEquals(3, TypeExpression.nestingOf("struct([1], [0], [Vector (2, 1, 2, dup(int))])"));
        assertEquals(100_000, TypeExpression.nestingOf("dup(".repeat(100_000) + "int" + ")".repeat(100_000)));
    }

    @Test
    void shouldPointIntoALongExpressionThroughAWindow()
    {
        final String expression = "contiguous(2, ".repeat(20) + "flaot" + ")".repeat(120);
        final TypeExpressionException ex =
            assertThrows(TypeExpressionException.class, () -> TypeExpression.parse(expression));

        final String[] lines = ex.pointer().split("\n");
        assertEquals(TypeExpressionException.POINTER_WINDOW + 6, lines[0].length(), lines[0]);
        assertTrue(lines[0].startsWith("...") && lines[0].endsWith("..."), lines[0]);
        assertEquals("flaot", lines[0].substring(lines[1].length() - 1, lines[1].length() + 4));
    }

    @Test
    void shouldReportWhatTheDatatypeEngineRefusesAtTheConstructor()
    {
        final TypeExpressionException ex = assertThrows(TypeExpressionException.class,
            () -> TypeExpression.parse("contiguous(2, vector(-1, 2, 8, float))"));

        assertEquals(14, ex.position());
        assertEquals("at column 15: vector: " + assertThrows(RuntimeException.class,
            () -> Datatype.vector(-1, 2, 8, Datatype.FLOAT)).getMessage(), ex.getMessage());
    }
}
