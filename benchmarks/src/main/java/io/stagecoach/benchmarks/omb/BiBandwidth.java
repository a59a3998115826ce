package io.stagecoach.benchmarks.omb;

import io.stagecoach.protocol.datatype.Datatype;
import io.stagecoach.rank.Communicator;
import io.stagecoach.rank.Request;

/**
 * OMB's bi-directional bandwidth test (osu_bibw) on two Stagecoach ranks: each rank posts a window of non-blocking
 * receives and a window of non-blocking sends, then waits for all; reported as the bytes of both directions in
 * MB/s (10^6 bytes per second) for each power-of-two size.
 * <pre>
 * stagecoach run -n 2 bibw [H|D H|D] [--min-size 1] [--max-size 4194304] [--window 64] [--iterations N] [--skip N]
 *                        [--warm-up ROUND_TRIPS]
 * </pre>
 * Windows as OMB: 100 after 10 warm-up up to 8 KiB, 20 after 2 above. The received bytes are checked once per size.
 */
public final class BiBandwidth
{
    static final String PROGRAM = "bibw";
    private static final int TAG_BASE = 10;

    private final BenchmarkRank rank;
    private final BenchmarkOptions options;
    private final OmbReport report;
    private final Request[] requests;

    private BiBandwidth(final BenchmarkRank rank, final BenchmarkOptions options)
    {
        this.rank = rank;
        this.options = options;
        this.report = new OmbReport(PROGRAM, rank.isRoot());
        this.requests = new Request[2 * options.window()];
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
            new BiBandwidth(rank, options).run();
        }
    }

    private void run()
    {
        report.title("Bi-Directional Bandwidth Test", options, rank.deviceDescription());
        report.comment(JitWarmUp.describe(options.warmUpRoundTrips(), JitWarmUp.MESSAGE_ROUND));
        report.comment("Window size " + options.window());
        report.columns("Bandwidth (MB/s)");
        final long length = Math.max(options.maxSizeBytes(), JitWarmUp.LARGE_BYTES);
        try (RankBuffer sendBuffer = rank.allocate(length); RankBuffer receiveBuffer = rank.allocate(length))
        {
            JitWarmUp.run(rank, options.warmUpRoundTrips(), JitWarmUp.messageRound(options.window(),
                (bytes, iterations) -> measure(bytes, iterations, 0, sendBuffer, receiveBuffer)));
            for (long size = options.minSizeBytes(); size <= options.maxSizeBytes(); size <<= 1)
            {
                report.progress(size + " bytes");
                final double mbPerSecond = measure(size,
                    options.iterations(size, Latency.LARGE_MESSAGE_BYTES, 100, 20),
                    options.skip(size, Latency.LARGE_MESSAGE_BYTES, 10, 2), sendBuffer, receiveBuffer);
                report.row(size, mbPerSecond);
            }
        }
    }

    /**
     * The timed loop of {@code iterations} windows; the JIT warm-up runs it too, so that it is compiled before it is
     * timed.
     */
    private double measure(
        final long size, final long iterations, final long skip, final RankBuffer sendBuffer,
        final RankBuffer receiveBuffer)
    {
        sendBuffer.write(0, Pattern.of(size, rank.rank()));
        receiveBuffer.write(0, Pattern.zeros(size));
        final BufferRegion out = sendBuffer.region(0);
        final BufferRegion in = receiveBuffer.region(0);
        rank.barrier();
        long startNs = 0;
        for (long i = 0; i < iterations + skip; i++)
        {
            if (i == skip)
            {
                startNs = System.nanoTime();
            }
            exchangeWindow(out, in, size);
        }
        final long elapsedNs = System.nanoTime() - startNs;
        Pattern.check(receiveBuffer, size, rank.peer(), PROGRAM + " size " + size);
        return 2.0 * size * iterations * options.window() / 1e6 / (elapsedNs / 1e9);
    }

    private void exchangeWindow(final BufferRegion out, final BufferRegion in, final long size)
    {
        final Communicator comm = rank.comm();
        final int window = options.window();
        for (int w = 0; w < window; w++)
        {
            requests[w] = in.irecv(comm, size, Datatype.BYTE, rank.peer(), TAG_BASE + rank.peer());
        }
        for (int w = 0; w < window; w++)
        {
            requests[window + w] = out.isend(comm, size, Datatype.BYTE, rank.peer(), TAG_BASE + rank.rank());
        }
        Windows.awaitAll(requests);
    }
}
