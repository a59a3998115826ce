package io.stagecoach.benchmarks.omb;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
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
        final double[][] oneWayUs = new double[faces.length][grids.length];
        JitWarmUp.run(rank, options.warmUpRoundTrips());
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
                    oneWayUs[face.ordinal()][g] = measure(face, n, grid);
                }
            }
        }
        printTables(grids, oneWayUs);
    }

    private double measure(final HaloFace face, final int n, final RankBuffer grid)
    {
        final Datatype type = face.datatype(n).commit();
        final long faceBytes = type.size();
        final long iterations = options.iterations(faceBytes, LARGE_FACE_BYTES, 1_000, 200);
        final long skip = options.skip(faceBytes, LARGE_FACE_BYTES, 10, 10);
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
            }
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
        final long elapsedNs = System.nanoTime() - startNs;
        checkGhost(face, n, grid, root ? n - 1 : 0, root ? 1 : n - 2);
        type.free();
        return elapsedNs / 1e3 / (2.0 * iterations);
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

    private void printTables(final int[] grids, final double[][] oneWayUs)
    {
        report.title("Halo Face Latency Test", options, rank.deviceDescription());
        report.comment(JitWarmUp.describe(options.warmUpRoundTrips()));
        report.comment("float arrays, x fastest; rank 0 sends plane N-2 into rank 1's plane 0, rank 1 sends plane 1 " +
            "back");
        for (final HaloFace face : HaloFace.values())
        {
            report.comment("Face " + face + ": " + face.construction());
            report.print(String.format(Locale.ROOT, "%-10s%12s%" + FIELD_WIDTH + "s", "# Grid", "Bytes",
                "Avg Latency(us)"));
            for (int g = 0; g < grids.length; g++)
            {
                report.print(String.format(Locale.ROOT, "%-10d%12d%" + FIELD_WIDTH + ".2f", grids[g],
                    4L * grids[g] * grids[g], oneWayUs[face.ordinal()][g]));
            }
        }
    }
}
