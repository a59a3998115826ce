package io.stagecoach.benchmarks.omb;

import io.stagecoach.protocol.datatype.Datatype;
import io.stagecoach.rank.Communicator;
import io.stagecoach.rank.Request;

/**
 * OMB's bandwidth test (osu_bw) on two Stagecoach ranks: rank 0 posts a window of non-blocking sends, rank 1 a
 * window of non-blocking receives, both wait for all, and rank 1 acknowledges the window with 4 bytes; reported in
 * MB/s (10^6 bytes per second) for each power-of-two size.
 * <pre>
 * stagecoach run -n 2 bw [H|D H|D] [--min-size 1] [--max-size 4194304] [--window 64] [--iterations N] [--skip N]
 *                        [--warm-up ROUND_TRIPS]
 * </pre>
 * Windows as OMB: 100 after 10 warm-up up to 8 KiB, 20 after 2 above. The received bytes are checked once per size.
 */
public final class Bandwidth
{
    static final String PROGRAM = "bw";
    private static final int TAG = 100;
    private static final int ACK_TAG = 101;
    private static final int ACK_BYTES = 4;

    private final BenchmarkRank rank;
    private final BenchmarkOptions options;
    private final OmbReport report;
    private final Request[] requests;

    private Bandwidth(final BenchmarkRank rank, final BenchmarkOptions options)
    {
        this.rank = rank;
        this.options = options;
        this.report = new OmbReport(PROGRAM, rank.isRoot());
        this.requests = new Request[options.window()];
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
            new Bandwidth(rank, options).run();
        }
    }

    private void run()
    {
        report.title("Bandwidth Test", options, rank.deviceDescription());
        report.comment(JitWarmUp.describe(options.warmUpRoundTrips(), JitWarmUp.MESSAGE_ROUND));
        report.comment("Window size " + options.window());
        report.columns("Bandwidth (MB/s)");
        final long length = Math.max(Math.max(options.maxSizeBytes(), ACK_BYTES), JitWarmUp.LARGE_BYTES);
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
        long endNs = 0;
        for (long i = 0; i < iterations + skip; i++)
        {
            if (i == skip)
            {
                startNs = System.nanoTime();
            }
            if (rank.isRoot())
            {
                sendWindow(out, in, size);
            }
            else
            {
                receiveWindow(out, in, size);
            }
            endNs = System.nanoTime();
        }
        if (!rank.isRoot())
        {
            Pattern.check(receiveBuffer, size, rank.peer(), PROGRAM + " size " + size);
        }
        return (double)size * iterations * options.window() / 1e6 / ((endNs - startNs) / 1e9);
    }

    private void sendWindow(final BufferRegion out, final BufferRegion in, final long size)
    {
        final Communicator comm = rank.comm();
        for (int w = 0; w < requests.length; w++)
        {
            requests[w] = out.isend(comm, size, Datatype.BYTE, rank.peer(), TAG);
        }
        Windows.awaitAll(requests);
        in.recv(comm, ACK_BYTES, Datatype.BYTE, rank.peer(), ACK_TAG);
    }

    private void receiveWindow(final BufferRegion out, final BufferRegion in, final long size)
    {
        final Communicator comm = rank.comm();
        for (int w = 0; w < requests.length; w++)
        {
            requests[w] = in.irecv(comm, size, Datatype.BYTE, rank.peer(), TAG);
        }
        Windows.awaitAll(requests);
        out.send(comm, ACK_BYTES, Datatype.BYTE, rank.peer(), ACK_TAG);
    }
}
