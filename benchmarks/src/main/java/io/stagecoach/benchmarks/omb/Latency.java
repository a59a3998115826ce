package io.stagecoach.benchmarks.omb;

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

    private final BenchmarkRank rank;
    private final BenchmarkOptions options;
    private final OmbReport report;

    Latency(final BenchmarkRank rank, final BenchmarkOptions options)
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
        report.comment(JitWarmUp.describe(options.warmUpRoundTrips(), JitWarmUp.MESSAGE_ROUND));
        if (options.percentiles())
        {
            report.columns("Avg Latency(us)", "P50 Latency(us)", "P99 Latency(us)");
        }
        else
        {
            report.columns("Avg Latency(us)");
        }
        final long length = Math.max(options.maxSizeBytes(), JitWarmUp.LARGE_BYTES);
        try (RankBuffer sendBuffer = rank.allocate(length); RankBuffer receiveBuffer = rank.allocate(length))
        {
            JitWarmUp.run(rank, options.warmUpRoundTrips(), JitWarmUp.messageRound(1,
                (bytes, iterations) -> measure(bytes, iterations, 0, sendBuffer, receiveBuffer)));
            for (long size = options.minSizeBytes(); size <= options.maxSizeBytes(); size <<= 1)
            {
                report.progress(size + " bytes");
                report.row(size, measure(size,
                    options.iterations(size, LARGE_MESSAGE_BYTES, 10_000, 1_000),
                    options.skip(size, LARGE_MESSAGE_BYTES, 100, 10), sendBuffer, receiveBuffer));
            }
        }
    }

    /**
     * The timed loop; the JIT warm-up runs it too, so that it is compiled before it is timed.
     *
     * @return the average one-way time in microseconds, then the median and the 99th percentile with
     * {@code --percentiles}.
     */
    double[] measure(
        final long size, final long iterations, final long skip, final RankBuffer sendBuffer,
        final RankBuffer receiveBuffer)
    {
        final RoundTrips roundTrips = RoundTrips.of(iterations, options.percentiles());
        sendBuffer.write(0, Pattern.of(size, rank.rank()));
        receiveBuffer.write(0, Pattern.zeros(size));
        final BufferRegion out = sendBuffer.region(0);
        final BufferRegion in = receiveBuffer.region(0);
        final Communicator comm = rank.comm();
        final int peer = rank.peer();
        rank.barrier();
        long startNs = 0;
        for (long i = 0; i < iterations + skip; i++)
        {
            if (i == skip)
            {
                startNs = System.nanoTime();
                roundTrips.start(startNs);
            }
            roundTrip(out, in, comm, peer, size);
            if (i >= skip)
            {
                roundTrips.ended();
            }
        }
        final long elapsedNs = System.nanoTime() - startNs;
        Pattern.check(receiveBuffer, size, peer, PROGRAM + " size " + size);
        return roundTrips.oneWayUs(elapsedNs, iterations);
    }

    /**
     * One iteration, a method of its own: compiled whole during the warm-up, and too big to be inlined again when the
     * loop around it is compiled on the stack, so that compilation is short.
     */
    private void roundTrip(
        final BufferRegion out, final BufferRegion in, final Communicator comm, final int peer, final long size)
    {
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
    }
}
