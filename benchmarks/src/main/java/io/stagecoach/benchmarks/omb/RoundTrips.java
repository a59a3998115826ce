package io.stagecoach.benchmarks.omb;

import java.util.Arrays;

/**
 * The round trips of one timed ping-pong loop, each recorded when {@code --percentiles} asks for the median and the
 * 99th percentile of the one-way times beside OMB's average. Allocated before the loop; recording does not allocate.
 */
final class RoundTrips
{
    private static final long MAX_RECORDED_ITERATIONS = 50_000_000;

    private final long[] roundTripsNs;
    private long lastNs;
    private int count;

    private RoundTrips(final long[] roundTripsNs)
    {
        this.roundTripsNs = roundTripsNs;
    }

    /**
     * @param iterations timed round trips to come.
     * @param record     whether to record each (else only the average is kept).
     * @return the record of the loop.
     * @throws IllegalArgumentException naming the count and the limit where there are too many to record.
     */
    static RoundTrips of(final long iterations, final boolean record)
    {
        if (!record)
        {
            return new RoundTrips(null);
        }
        if (iterations > MAX_RECORDED_ITERATIONS)
        {
            throw new IllegalArgumentException(BenchmarkOptions.PERCENTILES + " records every round trip: " +
                "--iterations " + iterations + " exceeds " + MAX_RECORDED_ITERATIONS);
        }
        return new RoundTrips(new long[(int)iterations]);
    }

    /** The timed loop starts now. */
    void start(final long nowNs)
    {
        lastNs = nowNs;
    }

    /** One more round trip ended (read from the clock only where recorded). */
    void ended()
    {
        if (roundTripsNs != null)
        {
            final long nowNs = System.nanoTime();
            roundTripsNs[count++] = nowNs - lastNs;
            lastNs = nowNs;
        }
    }

    /**
     * @param elapsedNs the timed loop's time.
     * @param iterations its round trips.
     * @return the average one-way time in microseconds, then the median and 99th percentile where recorded.
     */
    double[] oneWayUs(final long elapsedNs, final long iterations)
    {
        final double averageUs = elapsedNs / 1e3 / (2.0 * Math.max(1, iterations));
        if (roundTripsNs == null || count == 0)
        {
            return new double[]{ averageUs };
        }
        Arrays.sort(roundTripsNs, 0, count);
        return new double[]{ averageUs, quantileUs(0.50), quantileUs(0.99) };
    }

    private double quantileUs(final double quantile)
    {
        final int index = (int)Math.min(count - 1, Math.floor(quantile * count));
        return roundTripsNs[index] / 2e3;
    }
}
