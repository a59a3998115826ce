package io.stagecoach.protocol.datatype;

import io.stagecoach.protocol.ErrorClass;

/**
 * Exact long arithmetic that fails with a {@link DatatypeException} naming the quantity and both operands: of
 * class {@link ErrorClass#VALUE_TOO_LARGE} unless the caller names the argument to blame.
 */
final class Checked
{
    private Checked()
    {
    }

    static long multiply(final long a, final long b, final String what)
    {
        return multiply(a, b, what, ErrorClass.VALUE_TOO_LARGE);
    }

    static long multiply(final long a, final long b, final String what, final ErrorClass errorClass)
    {
        final long high = Math.multiplyHigh(a, b);
        final long low = a * b;
        if ((high == 0 && low >= 0) || (high == -1 && low < 0))
        {
            return low;
        }
        throw new DatatypeException(errorClass,
            what + " overflows the long limit " + Long.MAX_VALUE + ": " + a + " x " + b);
    }

    static long add(final long a, final long b, final String what)
    {
        return add(a, b, what, ErrorClass.VALUE_TOO_LARGE);
    }

    static long add(final long a, final long b, final String what, final ErrorClass errorClass)
    {
        final long sum = a + b;
        if (((a ^ sum) & (b ^ sum)) < 0)
        {
            throw new DatatypeException(errorClass,
                what + " overflows the long limit " + Long.MAX_VALUE + ": " + a + " + " + b);
        }
        return sum;
    }

    static void nonNegative(final long value, final String what, final ErrorClass errorClass)
    {
        if (value < 0)
        {
            throw new DatatypeException(errorClass, what + " must be >= 0, was " + value);
        }
    }
}
