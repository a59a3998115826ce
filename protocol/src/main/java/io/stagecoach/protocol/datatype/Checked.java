package io.stagecoach.protocol.datatype;

/**
 * Exact long arithmetic that fails with a {@link DatatypeException} naming the quantity and both operands.
 */
final class Checked
{
    private Checked()
    {
    }

    static long multiply(final long a, final long b, final String what)
    {
        final long high = Math.multiplyHigh(a, b);
        final long low = a * b;
        if ((high == 0 && low >= 0) || (high == -1 && low < 0))
        {
            return low;
        }
        throw new DatatypeException(what + " overflows the long limit " + Long.MAX_VALUE + ": " + a + " x " + b);
    }

    static long add(final long a, final long b, final String what)
    {
        final long sum = a + b;
        if (((a ^ sum) & (b ^ sum)) < 0)
        {
            throw new DatatypeException(
                what + " overflows the long limit " + Long.MAX_VALUE + ": " + a + " + " + b);
        }
        return sum;
    }

    static int toInt(final long value, final String what)
    {
        if (value > Integer.MAX_VALUE || value < Integer.MIN_VALUE)
        {
            throw new DatatypeException(what + " " + value + " exceeds the int limit " + Integer.MAX_VALUE);
        }
        return (int)value;
    }

    static void nonNegative(final long value, final String what)
    {
        if (value < 0)
        {
            throw new DatatypeException(what + " must be >= 0, was " + value);
        }
    }
}
