package io.stagecoach.node.cli;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

import io.stagecoach.protocol.datatype.Datatype;
import io.stagecoach.protocol.datatype.DatatypeException;
import io.stagecoach.protocol.datatype.Distribution;
import io.stagecoach.protocol.datatype.Order;

/**
 * A small text syntax for MPI derived datatypes, as the command line writes them:
 * <pre>
 *   type  := basic | constructor '(' arguments ')'
 *   basic := byte | char | short | int | long | float | double | boolean | packed
 *   contiguous(count, type)                 vector(count, blocklength, stride, type)
 *   hvector(count, blocklength, stride_bytes, type)
 *   indexed([blocklengths], [displacements], type)
 *   hindexed([blocklengths], [displacements_bytes], type)
 *   indexed_block(blocklength, [displacements], type)
 *   hindexed_block(blocklength, [displacements_bytes], type)
 *   struct([blocklengths], [displacements_bytes], [types])
 *   subarray([sizes], [subsizes], [starts], C|F, type)
 *   darray(size, rank, [gsizes], [block|block(k)|cyclic|cyclic(k)|none, ...], [psizes], C|F, type)
 *   resized(type, lb, extent)               dup(type)
 * </pre>
 * Names are case-insensitive; whitespace is free; integers may be negative where MPI allows it. Constructors nest
 * at most {@link #MAX_NESTING} deep. The result is not committed.
 */
public final class TypeExpression
{
    /**
     * Deepest nesting of constructors read: far deeper than any datatype a program builds, and shallow enough that
     * parsing, committing and describing the deepest one stay well inside any thread's stack.
     */
    public static final int MAX_NESTING = 64;

    private static final Map<String, Datatype> BASIC = new TreeMap<>();
    private static final Map<String, String> ARITY = new LinkedHashMap<>();

    static
    {
        BASIC.put("byte", Datatype.BYTE);
        BASIC.put("char", Datatype.CHAR);
        BASIC.put("short", Datatype.SHORT);
        BASIC.put("int", Datatype.INT);
        BASIC.put("long", Datatype.LONG);
        BASIC.put("float", Datatype.FLOAT);
        BASIC.put("double", Datatype.DOUBLE);
        BASIC.put("boolean", Datatype.BOOLEAN);
        BASIC.put("packed", Datatype.PACKED);
        ARITY.put("contiguous", "count, type");
        ARITY.put("vector", "count, blocklength, stride, type");
        ARITY.put("hvector", "count, blocklength, stride_bytes, type");
        ARITY.put("indexed", "[blocklengths], [displacements], type");
        ARITY.put("hindexed", "[blocklengths], [displacements_bytes], type");
        ARITY.put("indexed_block", "blocklength, [displacements], type");
        ARITY.put("hindexed_block", "blocklength, [displacements_bytes], type");
        ARITY.put("struct", "[blocklengths], [displacements_bytes], [types]");
        ARITY.put("subarray", "[sizes], [subsizes], [starts], C|F, type");
        ARITY.put("darray", "size, rank, [gsizes], [distributions], [psizes], C|F, type");
        ARITY.put("resized", "type, lb, extent");
        ARITY.put("dup", "type");
    }

    private final String text;
    private int position;
    private int nesting;

    private TypeExpression(final String text)
    {
        this.text = text;
    }

    /**
     * Parse a datatype expression and build the datatype it describes.
     *
     * @param text the expression, e.g. {@code vector(4, 2, 8, float)}.
     * @return the datatype, not committed.
     * @throws TypeExpressionException naming the column and what was expected there, or what the datatype
     *                                 engine refused.
     */
    public static Datatype parse(final String text)
    {
        final TypeExpression parser = new TypeExpression(text);
        final Datatype type = parser.type();
        parser.skipSpaces();
        if (parser.position < text.length())
        {
            throw parser.error("expected the end of the expression but found " + parser.found());
        }
        return type;
    }

    /**
     * @return the basic type names, comma separated.
     */
    public static String basicNames()
    {
        return String.join(", ", BASIC.keySet());
    }

    /**
     * @return the constructor names, comma separated.
     */
    public static String constructorNames()
    {
        return String.join(", ", ARITY.keySet());
    }

    private Datatype type()
    {
        skipSpaces();
        final int start = position;
        final String name = identifier("a datatype");
        skipSpaces();
        if (!peek('('))
        {
            final Datatype basic = BASIC.get(name);
            if (null != basic)
            {
                return basic;
            }
            if (ARITY.containsKey(name))
            {
                throw error("expected '(' after " + name + " but found " + found());
            }
            throw new TypeExpressionException(text, start, "unknown datatype '" + name + "'; expected a basic type (" +
                basicNames() + ") or a constructor (" + constructorNames() + ")");
        }
        if (++nesting > MAX_NESTING)
        {
            throw new TypeExpressionException(text, start, "the expression nests constructors " + nestingOf(text) +
                " deep, more than the limit of " + MAX_NESTING);
        }
        expect('(', "'(' after " + name);
        final Datatype type = construct(name, start);
        expect(')', "')' closing " + name + " (it takes " + ARITY.get(name) + ")");
        nesting--;
        return type;
    }

    /**
     * @return how deep constructors nest in {@code text}, counted without recursion, however deep it is.
     */
    static int nestingOf(final String text)
    {
        final BitSet constructorLevels = new BitSet();
        int level = 0;
        int depth = 0;
        int deepest = 0;
        for (int i = 0; i < text.length(); i++)
        {
            if (text.charAt(i) == '(')
            {
                final boolean constructor = ARITY.containsKey(identifierBefore(text, i));
                constructorLevels.set(level++, constructor);
                depth += constructor ? 1 : 0;
                deepest = Math.max(deepest, depth);
            }
            else if (text.charAt(i) == ')' && level > 0)
            {
                depth -= constructorLevels.get(--level) ? 1 : 0;
            }
        }
        return deepest;
    }

    private static String identifierBefore(final String text, final int index)
    {
        int end = index;
        while (end > 0 && Character.isWhitespace(text.charAt(end - 1)))
        {
            end--;
        }
        int start = end;
        while (start > 0 && (Character.isLetterOrDigit(text.charAt(start - 1)) || text.charAt(start - 1) == '_'))
        {
            start--;
        }
        return text.substring(start, end).toLowerCase(Locale.ROOT);
    }

    private Datatype construct(final String name, final int start)
    {
        final Arguments arguments = new Arguments(name, start);
        switch (name)
        {
            case "contiguous":
                return arguments.build(() -> Datatype.contiguous(arguments.count(), arguments.type()));
            case "vector":
                return arguments.build(() -> Datatype.vector(
                    arguments.count(), arguments.longInteger("block length"), arguments.longInteger("stride"),
                    arguments.type()));
            case "hvector":
                return arguments.build(() -> Datatype.hvector(
                    arguments.count(), arguments.longInteger("block length"), arguments.longInteger("stride in bytes"),
                    arguments.type()));
            case "indexed":
                return arguments.build(() -> Datatype.indexed(
                    arguments.longs("block lengths"),
                    arguments.longs("displacements", arguments.lengthOfPrevious()),
                    arguments.type()));
            case "hindexed":
                return arguments.build(() -> Datatype.hindexed(
                    arguments.longs("block lengths"),
                    arguments.longs("displacements in bytes", arguments.lengthOfPrevious()),
                    arguments.type()));
            case "indexed_block":
                return arguments.build(() -> Datatype.indexedBlock(
                    arguments.longInteger("block length"), arguments.longs("displacements"), arguments.type()));
            case "hindexed_block":
                return arguments.build(() -> Datatype.hindexedBlock(
                    arguments.longInteger("block length"), arguments.longs("displacements in bytes"),
                    arguments.type()));
            case "struct":
                return arguments.build(() -> Datatype.struct(
                    arguments.longs("block lengths"),
                    arguments.longs("displacements in bytes", arguments.lengthOfPrevious()),
                    arguments.types(arguments.lengthOfPrevious())));
            case "subarray":
                return subarray(arguments);
            case "darray":
                return darray(arguments);
            case "resized":
                return arguments.build(() ->
                {
                    final Datatype type = arguments.type();
                    return type.resized(arguments.longInteger("lb"), arguments.longInteger("extent"));
                });
            case "dup":
                return arguments.build(() -> arguments.type().dup());
            default:
                throw new TypeExpressionException(text, start, "unknown constructor '" + name + "'; expected one of " +
                    constructorNames());
        }
    }

    private Datatype subarray(final Arguments arguments)
    {
        return arguments.build(() ->
        {
            final long[] sizes = arguments.longs("sizes");
            final long[] subsizes = arguments.longs("subsizes", sizes.length);
            final long[] starts = arguments.longs("starts", sizes.length);
            return Datatype.subarray(sizes, subsizes, starts, arguments.order(), arguments.type());
        });
    }

    private Datatype darray(final Arguments arguments)
    {
        return arguments.build(() ->
        {
            final int size = arguments.integer("size");
            final int rank = arguments.integer("rank");
            final long[] gsizes = arguments.longs("gsizes");
            final List<int[]> distributions = arguments.distributions(gsizes.length);
            final int[] psizes = arguments.integers("psizes", gsizes.length);
            final Distribution[] kinds = new Distribution[gsizes.length];
            final int[] dargs = new int[gsizes.length];
            for (int i = 0; i < gsizes.length; i++)
            {
                kinds[i] = Distribution.values()[distributions.get(i)[0]];
                dargs[i] = distributions.get(i)[1];
            }
            return Datatype.darray(size, rank, gsizes, kinds, dargs, psizes, arguments.order(), arguments.type());
        });
    }

    /**
     * The arguments of one constructor call, read in order, with the commas between them.
     */
    private final class Arguments
    {
        private final String constructor;
        private final int start;
        private int index;
        private int lengthOfPrevious;

        Arguments(final String constructor, final int start)
        {
            this.constructor = constructor;
            this.start = start;
        }

        Datatype build(final Builder builder)
        {
            try
            {
                return builder.build();
            }
            catch (final TypeExpressionException ex)
            {
                throw ex;
            }
            catch (final DatatypeException | IllegalArgumentException ex)
            {
                throw new TypeExpressionException(text, start, constructor + ": " + ex.getMessage());
            }
        }

        long count()
        {
            return longInteger("count");
        }

        int integer(final String what)
        {
            separator(what);
            return (int)number(what, Integer.MIN_VALUE, Integer.MAX_VALUE);
        }

        long longInteger(final String what)
        {
            separator(what);
            return number(what, Long.MIN_VALUE, Long.MAX_VALUE);
        }

        int[] integers(final String what, final int expectedLength)
        {
            separator(what);
            final int listStart = position;
            final List<Long> values =
                list(what, () -> number("an element of " + what, Integer.MIN_VALUE, Integer.MAX_VALUE));
            checkLength(what, values.size(), expectedLength, listStart);
            return values.stream().mapToInt(Long::intValue).toArray();
        }

        long[] longs(final String what)
        {
            return longs(what, -1);
        }

        long[] longs(final String what, final int expectedLength)
        {
            separator(what);
            final int listStart = position;
            final List<Long> values =
                list(what, () -> number("an element of " + what, Long.MIN_VALUE, Long.MAX_VALUE));
            checkLength(what, values.size(), expectedLength, listStart);
            return values.stream().mapToLong(Long::longValue).toArray();
        }

        Datatype[] types(final int expectedLength)
        {
            separator("types");
            final int listStart = position;
            final List<Datatype> types = list("types", TypeExpression.this::type);
            checkLength("types", types.size(), expectedLength, listStart);
            return types.toArray(new Datatype[0]);
        }

        List<int[]> distributions(final int expectedLength)
        {
            separator("distributions");
            final int listStart = position;
            final List<int[]> distributions = list("distributions", TypeExpression.this::distribution);
            checkLength("distributions", distributions.size(), expectedLength, listStart);
            return distributions;
        }

        Order order()
        {
            separator("storage order");
            final int orderStart = position;
            final String name = identifier("the storage order (C or F)");
            switch (name)
            {
                case "c":
                    return Order.C;
                case "f":
                case "fortran":
                    return Order.FORTRAN;
                default:
                    throw new TypeExpressionException(text, orderStart,
                        "expected the storage order (C or F) but found '" + name + "'");
            }
        }

        Datatype type()
        {
            separator("type");
            return TypeExpression.this.type();
        }

        int lengthOfPrevious()
        {
            return lengthOfPrevious;
        }

        private void checkLength(final String what, final int length, final int expected, final int listStart)
        {
            if (expected >= 0 && length != expected)
            {
                throw new TypeExpressionException(text, listStart, constructor + ": the list of " + what + " has " +
                    elements(length) + " but the list before it has " + elements(expected));
            }
            lengthOfPrevious = length;
        }

        private void separator(final String what)
        {
            if (index++ > 0)
            {
                expect(',', "',' before the " + what + " of " + constructor);
            }
        }
    }

    @FunctionalInterface
    private interface Builder
    {
        Datatype build();
    }

    @FunctionalInterface
    private interface Element<T>
    {
        T read();
    }

    private <T> List<T> list(final String what, final Element<T> element)
    {
        skipSpaces();
        expect('[', "'[' opening the list of " + what);
        final List<T> values = new ArrayList<>();
        skipSpaces();
        if (peek(']'))
        {
            position++;
            return values;
        }
        do
        {
            values.add(element.read());
            skipSpaces();
        }
        while (accept(','));
        expect(']', "',' or ']' in the list of " + what);
        return values;
    }

    private int[] distribution()
    {
        skipSpaces();
        final int start = position;
        final String name = identifier("a distribution (block, cyclic, none, block(k) or cyclic(k))");
        final Distribution kind;
        switch (name)
        {
            case "block":
                kind = Distribution.BLOCK;
                break;
            case "cyclic":
                kind = Distribution.CYCLIC;
                break;
            case "none":
                kind = Distribution.NONE;
                break;
            default:
                throw new TypeExpressionException(text, start,
                    "expected a distribution (block, cyclic, none, block(k) or cyclic(k)) but found '" + name + "'");
        }
        skipSpaces();
        int darg = Datatype.DISTRIBUTE_DFLT_DARG;
        if (kind != Distribution.NONE && accept('('))
        {
            darg = (int)number("the distribution argument of " + name, 1, Integer.MAX_VALUE);
            expect(')', "')' closing " + name + "(k)");
        }
        return new int[]{ kind.ordinal(), darg };
    }

    private long number(final String what, final long min, final long max)
    {
        skipSpaces();
        final int start = position;
        if (peek('-') || peek('+'))
        {
            position++;
        }
        final int digitsStart = position;
        while (position < text.length() && Character.isDigit(text.charAt(position)))
        {
            position++;
        }
        if (position == digitsStart)
        {
            position = start;
            throw error("expected " + article(what) + " (an integer) but found " + found());
        }
        try
        {
            final long value = Long.parseLong(text.substring(start, position));
            if (value < min || value > max)
            {
                throw new TypeExpressionException(text, start,
                    what + " " + value + " is outside [" + min + ", " + max + "]");
            }
            return value;
        }
        catch (final NumberFormatException ex)
        {
            throw new TypeExpressionException(text, start,
                what + " " + text.substring(start, position) + " does not fit in 64 bits");
        }
    }

    private String identifier(final String what)
    {
        skipSpaces();
        final int start = position;
        while (position < text.length() &&
            (Character.isLetterOrDigit(text.charAt(position)) || text.charAt(position) == '_'))
        {
            position++;
        }
        if (position == start || Character.isDigit(text.charAt(start)))
        {
            position = start;
            throw error("expected " + what + " but found " + found());
        }
        return text.substring(start, position).toLowerCase(Locale.ROOT);
    }

    private void expect(final char c, final String what)
    {
        skipSpaces();
        if (!accept(c))
        {
            throw error("expected " + what + " but found " + found());
        }
    }

    private boolean accept(final char c)
    {
        skipSpaces();
        if (peek(c))
        {
            position++;
            return true;
        }
        return false;
    }

    private boolean peek(final char c)
    {
        return position < text.length() && text.charAt(position) == c;
    }

    private void skipSpaces()
    {
        while (position < text.length() && Character.isWhitespace(text.charAt(position)))
        {
            position++;
        }
    }

    private String found()
    {
        if (position >= text.length())
        {
            return "the end of the expression";
        }
        final int end = Math.min(text.length(), position + 12);
        return "'" + text.substring(position, end) + (end < text.length() ? "..." : "") + "'";
    }

    private TypeExpressionException error(final String problem)
    {
        return new TypeExpressionException(text, position, problem);
    }

    private static String elements(final int count)
    {
        return count + (count == 1 ? " element" : " elements");
    }

    private static String article(final String what)
    {
        return what.startsWith("an ") || what.startsWith("a ") || what.startsWith("the ") ? what : "the " + what;
    }
}
