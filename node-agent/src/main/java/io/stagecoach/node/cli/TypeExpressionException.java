package io.stagecoach.node.cli;

/**
 * A datatype expression could not be parsed or names a datatype that cannot be built. Carries the position so
 * that the command line can point at it.
 */
public final class TypeExpressionException extends IllegalArgumentException
{
    /**
     * Most characters of the expression that {@link #pointer()} shows.
     */
    public static final int POINTER_WINDOW = 100;

    private static final long serialVersionUID = 1L;

    private final String expression;
    private final int position;

    /**
     * @param expression the text parsed.
     * @param position   index of the offending character, in [0, expression.length()].
     * @param problem    what was expected or what is wrong.
     */
    public TypeExpressionException(final String expression, final int position, final String problem)
    {
        super("at column " + (position + 1) + ": " + problem);
        this.expression = expression;
        this.position = position;
    }

    /**
     * @return the text parsed.
     */
    public String expression()
    {
        return expression;
    }

    /**
     * @return index of the offending character (0-based; the expression's length for its end).
     */
    public int position()
    {
        return position;
    }

    /**
     * @return the expression on one line and a caret under the offending character on the next; of an expression
     * longer than {@link #POINTER_WINDOW} characters only that many around the offending one, the cut ends marked
     * with "...".
     */
    public String pointer()
    {
        final int from = Math.max(0, Math.min(position - POINTER_WINDOW / 2, expression.length() - POINTER_WINDOW));
        final int to = Math.min(expression.length(), from + POINTER_WINDOW);
        final String before = from > 0 ? "..." : "";
        final String after = to < expression.length() ? "..." : "";
        return before + expression.substring(from, to) + after + "\n" +
            " ".repeat(before.length() + position - from) + "^";
    }
}
