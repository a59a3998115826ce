package io.stagecoach.benchmarks.omb;

import java.util.Arrays;

import io.stagecoach.protocol.datatype.Datatype;
import io.stagecoach.rank.Communicator;

/**
 * OMB's latency test (osu_latency) on two Stagecoach ranks: a ping-pong of blocking send and receive for each
 * power-of-two size, reported as the average one-way time (half the round trip) in microseconds.
 * <pre>
 * stagecoach run -n 2 latency [H|D H|D] [--min-size 1] [--max-size 4194304] [--iterations N] [--skip N]
 *                        [--warm-up ROUND_TRIPS] [--percentiles]
 * </pre>
 * Iterations as OMB: 10000 after 100 warm-up up to 8 KiB, 1000 after 10 above. The received bytes are checked once
 * per size after the timed loop. With {@code --percentiles} each round trip is timed as well, and the median and the
 * 99th percentile of the half round trips follow OMB's average.
 */
public final class Latency
{
    static final String PROGRAM = "latency";
    static final long LARGE_MESSAGE_BYTES = 8192;
    private static final int TAG = 1;
    private static final long MAX_RECORDED_ITERATIONS = 50_000_000;

    private final BenchmarkRank rank;
    private final BenchmarkOptions options;
    private final OmbReport report;

    private Latency(final BenchmarkRank rank, final BenchmarkOptions options)
    {
        this.rank = rank;
        this.options = options;
        this.report = new OmbReport(PROGRAM, rank.isRoot());
    }

    /**
     * Entry point of each rank; rank 0 prints the table.
     *
     * @param args see the class comment.
     */
    public static void main(final String[] args)
    {
        final BenchmarkOptions options = BenchmarkOptions.parse(PROGRAM, args);
        try (BenchmarkRank rank = BenchmarkRank.start(PROGRAM, options))
        {
            new Latency(rank, options).run();
        }
    }

    private void run()
    {
        report.title("Latency Test", options, rank.deviceDescription());
        report.comment(JitWarmUp.describe(options.warmUpRoundTrips()));
        JitWarmUp.run(rank, options.warmUpRoundTrips());
        if (options.percentiles())
        {
            report.columns("Avg Latency(us)", "P50 Latency(us)", "P99 Latency(us)");
        }
        else
        {
            report.columns("Avg Latency(us)");
        }
        try (RankBuffer sendBuffer = rank.allocate(options.maxSizeBytes());
            RankBuffer receiveBuffer = rank.allocate(options.maxSizeBytes()))
        {
            for (long size = options.minSizeBytes(); size <= options.maxSizeBytes(); size <<= 1)
            {
                report.progress(size + " bytes");
                report.row(size, measure(size, sendBuffer, receiveBuffer));
            }
        }
    }

    private double[] measure(final long size, final RankBuffer sendBuffer, final RankBuffer receiveBuffer)
    {
        final long iterations = options.iterations(size, LARGE_MESSAGE_BYTES, 10_000, 1_000);
        final long skip = options.skip(size, LARGE_MESSAGE_BYTES, 100, 10);
        final long[] roundTripsNs = options.percentiles() ? new long[checkedLength(iterations)] : null;
        sendBuffer.write(0, Pattern.of(size, rank.rank()));
        receiveBuffer.write(0, Pattern.zeros(size));
        final BufferRegion out = sendBuffer.region(0);
        final BufferRegion in = receiveBuffer.region(0);
        final Communicator comm = rank.comm();
        final int peer = rank.peer();
        rank.barrier();
        long startNs = 0;
        long lastNs = 0;
        for (long i = 0; i < iterations + skip; i++)
        {
            if (i == skip)
            {
                startNs = System.nanoTime();
                lastNs = startNs;
            }
            if (rank.isRoot())
            {
                out.send(comm, size, Datatype.BYTE, peer, TAG);
                in.recv(comm, size, Datatype.BYTE, peer, TAG);
            }
            else
            {
                in.recv(comm, size, Datatype.BYTE, peer, TAG);
                out.send(comm, size, Datatype.BYTE, peer, TAG);
            }
            if (roundTripsNs != null && i >= skip)
            {
                final long nowNs = System.nanoTime();
                roundTripsNs[(int)(i - skip)] = nowNs - lastNs;
                lastNs = nowNs;
            }
        }
        final long elapsedNs = System.nanoTime() - startNs;
        Pattern.check(receiveBuffer, size, peer, PROGRAM + " size " + size);
        final double averageUs = elapsedNs / 1e3 / (2.0 * iterations);
        if (roundTripsNs == null)
        {
            return new double[]{ averageUs };
        }
        Arrays.sort(roundTripsNs);
        return new double[]{ averageUs, oneWayUs(roundTripsNs, 0.50), oneWayUs(roundTripsNs, 0.99) };
    }

    private static double oneWayUs(final long[] sortedRoundTripsNs, final double quantile)
    {
        final int last = sortedRoundTripsNs.length - 1;
        final int index = (int)Math.min(last, Math.floor(quantile * sortedRoundTripsNs.length));
        return sortedRoundTripsNs[index] / 2e3;
    }

    private static int checkedLength(final long iterations)
    {
        if (iterations > MAX_RECORDED_ITERATIONS)
        {
            throw new IllegalArgumentException(BenchmarkOptions.PERCENTILES + " records every round trip: " +
                "--iterations " + iterations + " exceeds " + MAX_RECORDED_ITERATIONS);
        }
        return (int)iterations;
    }
}
