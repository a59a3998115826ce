package io.stagecoach.benchmarks.omb;

import java.util.ArrayList;
import java.util.List;

import io.stagecoach.rank.bootstrap.LaunchEnvironment;

/**
 * The command line of the OMB-style programs, shaped like OMB's own:
 * <pre>
 * [H|D H|D] [--min-size BYTES] [--max-size BYTES] [--iterations N] [--skip N] [--window N] [--grids 128,256]
 *         [--warm-up ROUND_TRIPS] [--percentiles]
 * </pre>
 * The two letters name where rank 0's and rank 1's buffers live (host or device memory), default {@code H H}.
 * Iterations and skips left out follow OMB's counts for each size. {@code --warm-up} sets the untimed JIT warm-up
 * before the first size ({@link JitWarmUp}; 0 turns it off). {@code --percentiles} (latency and halo) adds the
 * median and the 99th percentile of the half round trips to OMB's average.
 */
final class BenchmarkOptions
{
    static final int MAX_WINDOW = 1024;
    static final long MAX_SIZE_BYTES = 1L << 30;
    static final int MAX_GRID = 1024;
    static final String PERCENTILES = "--percentiles";

    private MemoryLocation[] locations = { MemoryLocation.HOST, MemoryLocation.HOST };
    private long minSizeBytes = 1;
    private long maxSizeBytes = 4L << 20;
    private long iterations = -1;
    private long skip = -1;
    private int window = 64;
    private int[] grids = { 128, 256 };
    private long warmUpRoundTrips = 20_000;
    private boolean percentiles;

    static BenchmarkOptions parse(final String program, final String[] args)
    {
        return parse(program, args, 4L << 20);
    }

    /**
     * @param defaultMaxSizeBytes the largest size when {@code --max-size} is not given.
     */
    static BenchmarkOptions parse(final String program, final String[] args, final long defaultMaxSizeBytes)
    {
        if (wantsHelp(args))
        {
            if (!"0".equals(System.getenv().getOrDefault(LaunchEnvironment.RANK, "0")))
            {
                System.exit(0);
            }
            System.out.println(usage(program));
            System.exit(0);
        }
        final BenchmarkOptions options = new BenchmarkOptions();
        options.maxSizeBytes = defaultMaxSizeBytes;
        int i = 0;
        if (args.length >= 2 && !args[0].startsWith("--"))
        {
            options.locations = new MemoryLocation[]{ MemoryLocation.parse(args[0]), MemoryLocation.parse(args[1]) };
            i = 2;
        }
        while (i < args.length)
        {
            if (PERCENTILES.equals(args[i]))
            {
                options.percentiles = true;
                i++;
                continue;
            }
            if (i + 1 >= args.length)
            {
                throw new IllegalArgumentException(program + ": option " + args[i] + " needs a value");
            }
            options.set(program, args[i], args[i + 1]);
            i += 2;
        }
        if (options.minSizeBytes > options.maxSizeBytes)
        {
            throw new IllegalArgumentException(program + ": --min-size " + options.minSizeBytes +
                " is larger than --max-size " + options.maxSizeBytes);
        }
        return options;
    }

    /**
     * @return whether the arguments ask for the usage ({@code --help} or {@code -h}), which rank 0 prints.
     */
    static boolean wantsHelp(final String[] args)
    {
        for (final String arg : args)
        {
            if ("--help".equals(arg) || "-h".equals(arg))
            {
                return true;
            }
        }
        return false;
    }

    static String usage(final String program)
    {
        return "usage: stagecoach run -n 2 " + program + " [H|D H|D] [--min-size BYTES] [--max-size BYTES] " +
            "[--iterations N] [--skip N] [--window N] [--grids 128,256] [--warm-up ROUND_TRIPS] [" + PERCENTILES +
            "]\n  H|D H|D: where rank 0's and rank 1's buffers live (host or device memory), default H H\n" +
            "  --min-size, --max-size: message sizes, 1 B to " + MAX_SIZE_BYTES + " B (latency, actor-latency, bw, " +
            "bibw)\n" +
            "  --iterations, --skip: timed and untimed iterations per size (OMB's counts when left out)\n" +
            "  --window: messages in flight per window, at most " + MAX_WINDOW + " (bw, bibw; default 64)\n" +
            "  --grids: edges of the n^3 float grids, 4 to " + MAX_GRID + " (halo; default 128,256)\n" +
            "  --warm-up: untimed round trips before the first size, 0 for none (default 20000)\n" +
            "  " + PERCENTILES + ": also the median and the 99th percentile (latency, actor-latency, halo)";
    }

    private void set(final String program, final String name, final String value)
    {
        switch (name)
        {
            case "--min-size" -> minSizeBytes = parseLong(name, value, 1, MAX_SIZE_BYTES);
            case "--max-size" -> maxSizeBytes = parseLong(name, value, 1, MAX_SIZE_BYTES);
            case "--iterations" -> iterations = parseLong(name, value, 1, Integer.MAX_VALUE);
            case "--skip" -> skip = parseLong(name, value, 0, Integer.MAX_VALUE);
            case "--window" -> window = (int)parseLong(name, value, 1, MAX_WINDOW);
            case "--grids" -> grids = parseGrids(value);
            case "--warm-up" -> warmUpRoundTrips = parseLong(name, value, 0, 100_000_000);
            default -> throw new IllegalArgumentException(program + ": unknown option " + name +
                " (expected [H|D H|D] --min-size, --max-size, --iterations, --skip, --window, --grids, --warm-up, " +
                PERCENTILES + ")");
        }
    }

    private static long parseLong(final String name, final String value, final long min, final long max)
    {
        final long parsed;
        try
        {
            parsed = Long.parseLong(value);
        }
        catch (final NumberFormatException ex)
        {
            throw new IllegalArgumentException(name + " '" + value + "' is not an integer", ex);
        }
        if (parsed < min || parsed > max)
        {
            throw new IllegalArgumentException(name + " " + parsed + " is outside [" + min + ", " + max + "]");
        }
        return parsed;
    }

    private static int[] parseGrids(final String value)
    {
        final List<Integer> edges = new ArrayList<>();
        for (final String edge : value.split(","))
        {
            edges.add((int)parseLong("--grids edge", edge.trim(), 4, MAX_GRID));
        }
        return edges.stream().mapToInt(Integer::intValue).toArray();
    }

    MemoryLocation location(final int rank)
    {
        return locations[rank];
    }

    long minSizeBytes()
    {
        return minSizeBytes;
    }

    long maxSizeBytes()
    {
        return maxSizeBytes;
    }

    int window()
    {
        return window;
    }

    int[] grids()
    {
        return grids.clone();
    }

    long warmUpRoundTrips()
    {
        return warmUpRoundTrips;
    }

    boolean percentiles()
    {
        return percentiles;
    }

    boolean anyDevice()
    {
        return locations[0] == MemoryLocation.DEVICE || locations[1] == MemoryLocation.DEVICE;
    }

    /**
     * @return the iterations given on the command line, or {@code small} up to {@code thresholdBytes} and
     * {@code large} above it.
     */
    long iterations(final long sizeBytes, final long thresholdBytes, final long small, final long large)
    {
        return iterations > 0 ? iterations : (sizeBytes > thresholdBytes ? large : small);
    }

    /**
     * @return the warm-up iterations given on the command line, or {@code small} up to {@code thresholdBytes} and
     * {@code large} above it.
     */
    long skip(final long sizeBytes, final long thresholdBytes, final long small, final long large)
    {
        return skip >= 0 ? skip : (sizeBytes > thresholdBytes ? large : small);
    }
}
