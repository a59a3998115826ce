package io.stagecoach.benchmarks.omb;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.Locale;

import io.stagecoach.protocol.datatype.Datatype;
import io.stagecoach.rank.Communicator;

/**
 * Halo-face ping-pong on two Stagecoach ranks, the exchange of a 3D lattice-Boltzmann code: each face (X, Y, Z) of
 * an {@code n^3} float grid (x fastest) is sent with its derived datatype on both sides. Rank 0 sends its plane
 * {@code n-2} into rank 1's ghost plane 0; rank 1 answers with its plane 1 into rank 0's ghost plane {@code n-1}.
 * Reported per face as the average one-way time (half the round trip) in microseconds.
 * <pre>
 * stagecoach run -n 2 halo [H|D H|D] [--grids 128,256] [--iterations N] [--skip N]
 *                        [--warm-up ROUND_TRIPS]
 *   X face: vector(NY*NZ, 1, NX, FLOAT)   Y face: vector(NZ, NX, NX*NY, FLOAT)   Z face: contiguous(NX*NY, FLOAT)
 * </pre>
 * Iterations: 1000 for faces up to 64 KiB, 200 above, after 10 warm-up. Each ghost plane is checked against the
 * sender's plane once per face, after the timed loop.
 */
public final class Halo
{
    static final String PROGRAM = "halo";
    private static final long LARGE_FACE_BYTES = 64 * 1024;
    private static final int TAG = 2;
    private static final int FIELD_WIDTH = 18;

    private final BenchmarkRank rank;
    private final BenchmarkOptions options;
    private final OmbReport report;

    private Halo(final BenchmarkRank rank, final BenchmarkOptions options)
    {
        this.rank = rank;
        this.options = options;
        this.report = new OmbReport(PROGRAM, rank.isRoot());
    }

    /**
     * Entry point of each rank; rank 0 prints one table per face.
     *
     * @param args see the class comment.
     */
    public static void main(final String[] args)
    {
        final BenchmarkOptions options = BenchmarkOptions.parse(PROGRAM, args);
        try (BenchmarkRank rank = BenchmarkRank.start(PROGRAM, options))
        {
            new Halo(rank, options).run();
        }
    }

    private void run()
    {
        final int[] grids = options.grids();
        final HaloFace[] faces = HaloFace.values();
        final double[][][] oneWayUs = new double[faces.length][grids.length][];
        warmUp(grids);
        for (int g = 0; g < grids.length; g++)
        {
            final int n = grids[g];
            final ByteBuffer initial = initialGrid(n, rank.rank());
            try (RankBuffer grid = rank.allocate(initial.capacity()))
            {
                for (final HaloFace face : faces)
                {
                    report.progress(n + "^3 face " + face);
                    grid.write(0, initial);
                    final long faceBytes = face.datatype(n).size();
                    oneWayUs[face.ordinal()][g] = measure(face, n, grid,
                        options.iterations(faceBytes, LARGE_FACE_BYTES, 1_000, 200),
                        options.skip(faceBytes, LARGE_FACE_BYTES, 10, 10));
                }
            }
        }
        printTables(grids, oneWayUs);
    }

    /**
     * The timed loops, untimed, on the smallest grid: each face for a quarter of the warm-up's round trips, so that
     * the code they share reaches the optimising compiler.
     */
    private void warmUp(final int[] grids)
    {
        final int n = Arrays.stream(grids).min().orElseThrow();
        final ByteBuffer initial = initialGrid(n, rank.rank());
        try (RankBuffer grid = rank.allocate(initial.capacity()))
        {
            JitWarmUp.run(rank, options.warmUpRoundTrips(), roundTrips ->
            {
                for (final HaloFace face : HaloFace.values())
                {
                    grid.write(0, initial);
                    measure(face, n, grid, Math.max(1, roundTrips / 4), 0);
                }
            });
        }
    }

    /**
     * The timed loop; the JIT warm-up runs it too, so that it is compiled before it is timed.
     */
    private double[] measure(
        final HaloFace face, final int n, final RankBuffer grid, final long iterations, final long skip)
    {
        final RoundTrips roundTrips = RoundTrips.of(iterations, options.percentiles());
        final Datatype type = face.datatype(n).commit();
        final boolean root = rank.isRoot();
        final BufferRegion out = grid.region(face.offsetBytes(n, root ? n - 2 : 1));
        final BufferRegion ghost = grid.region(face.offsetBytes(n, root ? n - 1 : 0));
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
            roundTrip(out, ghost, comm, peer, type, root);
            if (i >= skip)
            {
                roundTrips.ended();
            }
        }
        final long elapsedNs = System.nanoTime() - startNs;
        checkGhost(face, n, grid, root ? n - 1 : 0, root ? 1 : n - 2);
        type.free();
        return roundTrips.oneWayUs(elapsedNs, iterations);
    }

    /**
     * One iteration, a method of its own: compiled whole during the warm-up, and too big to be inlined again when the
     * loop around it is compiled on the stack, so that compilation is short.
     */
    private static void roundTrip(
        final BufferRegion out, final BufferRegion ghost, final Communicator comm, final int peer, final Datatype type,
        final boolean root)
    {
        if (root)
        {
            out.send(comm, 1, type, peer, TAG);
            ghost.recv(comm, 1, type, peer, TAG);
        }
        else
        {
            ghost.recv(comm, 1, type, peer, TAG);
            out.send(comm, 1, type, peer, TAG);
        }
    }

    static float cellValue(final int owner, final long cell)
    {
        return (float)(owner * 0x400000 + ((cell * 2654435761L) & 0x3fffff));
    }

    private static ByteBuffer initialGrid(final int n, final int owner)
    {
        final long cells = (long)n * n * n;
        final ByteBuffer values = ByteBuffer.allocateDirect((int)(cells * Float.BYTES)).order(ByteOrder.nativeOrder());
        for (long c = 0; c < cells; c++)
        {
            values.putFloat((int)(c * Float.BYTES), cellValue(owner, c));
        }
        return values;
    }

    private void checkGhost(final HaloFace face, final int n, final RankBuffer grid, final int ghost, final int sent)
    {
        final ByteBuffer values = ByteBuffer.allocateDirect((int)grid.lengthBytes()).order(ByteOrder.nativeOrder());
        grid.read(0, values);
        for (long b = 0; b < n; b++)
        {
            for (long a = 0; a < n; a++)
            {
                final float expected = cellValue(rank.peer(), face.cell(n, sent, a, b));
                final float actual = values.getFloat((int)(face.cell(n, ghost, a, b) * Float.BYTES));
                if (actual != expected)
                {
                    throw new IllegalStateException(PROGRAM + " face " + face + " of " + n + "^3: ghost cell (" + a +
                        ", " + b + ") is " + actual + ", expected " + expected);
                }
            }
        }
    }

    private void printTables(final int[] grids, final double[][][] oneWayUs)
    {
        report.title("Halo Face Latency Test", options, rank.deviceDescription());
        report.comment(JitWarmUp.describe(options.warmUpRoundTrips(), JitWarmUp.HALO_ROUND));
        report.comment("float arrays, x fastest; rank 0 sends plane N-2 into rank 1's plane 0, rank 1 sends plane 1 " +
            "back");
        final String[] columns = options.percentiles() ?
            new String[]{ "Avg Latency(us)", "P50 Latency(us)", "P99 Latency(us)" } : new String[]{ "Avg Latency(us)" };
        for (final HaloFace face : HaloFace.values())
        {
            report.comment("Face " + face + ": " + face.construction());
            final StringBuilder header = new StringBuilder(String.format(Locale.ROOT, "%-10s%12s", "# Grid", "Bytes"));
            for (final String column : columns)
            {
                header.append(String.format(Locale.ROOT, "%" + FIELD_WIDTH + "s", column));
            }
            report.print(header.toString());
            for (int g = 0; g < grids.length; g++)
            {
                final StringBuilder row = new StringBuilder(
                    String.format(Locale.ROOT, "%-10d%12d", grids[g], 4L * grids[g] * grids[g]));
                for (final double value : oneWayUs[face.ordinal()][g])
                {
                    row.append(String.format(Locale.ROOT, "%" + FIELD_WIDTH + ".2f", value));
                }
                report.print(row.toString());
            }
        }
    }
}
