package io.stagecoach.benchmarks.device;

import java.util.Arrays;

/**
 * Durations in nanoseconds, summarised as median and tail percentiles.
 */
final class Samples
{
    private final long[] values;
    private int count;

    Samples(final int capacity)
    {
        values = new long[capacity];
    }

    void add(final long nanos)
    {
        values[count++] = nanos;
    }

    double percentileMicros(final double percentile)
    {
        final long[] sorted = Arrays.copyOf(values, count);
        Arrays.sort(sorted);
        final int index = (int)Math.min(count - 1, Math.round(percentile / 100.0 * (count - 1)));
        return sorted[index] / 1000.0;
    }

    double medianMicros()
    {
        return percentileMicros(50);
    }

    int count()
    {
        return count;
    }
}
