package io.stagecoach.node.launch;

/**
 * Non-negative decimal numbers read from words a peer sent: anything else, including a value that does not fit,
 * reads as -1, never as an exception.
 */
final class Decimals
{
    private static final int MAX_INT_DIGITS = 10;
    private static final int MAX_LONG_DIGITS = 18;

    private Decimals()
    {
    }

    /**
     * @param word ASCII digits.
     * @return its value, or -1 when it is not 1 to 10 digits or exceeds {@link Integer#MAX_VALUE}.
     */
    static int parseInt(final String word)
    {
        final long value = parse(word, MAX_INT_DIGITS);
        return value > Integer.MAX_VALUE ? -1 : (int)value;
    }

    /**
     * @param word ASCII digits.
     * @return its value, or -1 when it is not 1 to 18 digits.
     */
    static long parseLong(final String word)
    {
        return parse(word, MAX_LONG_DIGITS);
    }

    private static long parse(final String word, final int maxDigits)
    {
        if (null == word || word.isEmpty() || word.length() > maxDigits)
        {
            return -1;
        }
        long value = 0;
        for (int i = 0; i < word.length(); i++)
        {
            final char c = word.charAt(i);
            if (c < '0' || c > '9')
            {
                return -1;
            }
            value = value * 10 + (c - '0');
        }
        return value;
    }
}
