package io.stagecoach.node.dashboard;

/**
 * Counts of durations in log-linear buckets (16 per power of two, so a percentile is within about 6% of the value it
 * names) over a fixed array: bounded memory whatever the number of durations, no allocation per duration.
 */
final class DurationHistogram
{
    private static final int SUB_BITS = 4;
    private static final int SUB_BUCKETS = 1 << SUB_BITS;
    private static final int BUCKETS = (64 - SUB_BITS + 1) * SUB_BUCKETS;

    private final long[] counts = new long[BUCKETS];
    private long total;

    void record(final long valueNs)
    {
        counts[indexOf(Math.max(0, valueNs))]++;
        total++;
    }

    long count()
    {
        return total;
    }

    /**
     * @param fraction in (0, 1], e.g. 0.99.
     * @return the smallest bucket's upper bound below which that fraction of the durations lie; 0 when empty.
     */
    long percentileNs(final double fraction)
    {
        if (0 == total)
        {
            return 0;
        }
        final long rank = Math.max(1, (long)Math.ceil(fraction * total));
        long seen = 0;
        for (int i = 0; i < BUCKETS; i++)
        {
            seen += counts[i];
            if (seen >= rank)
            {
                return upperBound(i);
            }
        }
        return upperBound(BUCKETS - 1);
    }

    static int indexOf(final long value)
    {
        if (value < SUB_BUCKETS)
        {
            return (int)value;
        }
        final int exponent = 63 - Long.numberOfLeadingZeros(value);
        final int sub = (int)(value >>> (exponent - SUB_BITS)) & (SUB_BUCKETS - 1);
        return (exponent - SUB_BITS + 1) * SUB_BUCKETS + sub;
    }

    static long upperBound(final int index)
    {
        if (index < SUB_BUCKETS)
        {
            return index;
        }
        final int exponent = index / SUB_BUCKETS + SUB_BITS - 1;
        final long sub = index % SUB_BUCKETS;
        final long width = 1L << (exponent - SUB_BITS);
        return (1L << exponent) + (sub + 1) * width - 1;
    }
}
