package io.stagecoach.examples.lbm;

import java.util.List;

/**
 * The command line:
 * <pre>
 * lbm [--size N | --global X[xYxZ]] [--dims PXxPYxPZ] [--steps N] [--warm-up N]
 *     [--variant default|contig|datatype|overlap|all] [--case droplet|layer]
 * </pre>
 * {@code --size} gives every rank a block of N^3 cells (weak scaling, as the paper's "128^3 per GPU"; default 64);
 * {@code --global} gives the whole lattice instead, split over the ranks. {@code --dims} names the process grid
 * (default: as MPI_Dims_create, the largest first). {@code --steps} are timed after {@code --warm-up} untimed ones.
 */
final class LbmOptions
{
    static final String USAGE = String.join("\n",
        "usage: lbm [--size N | --global X[xYxZ]] [--dims PXxPYxPZ] [--steps N] [--warm-up N]",
        "           [--variant default|contig|datatype|overlap|all] [--case droplet|layer]",
        "  --size N        cells per rank along each axis (default 64): N^3 per rank",
        "  --global X[xYxZ] cells of the whole lattice, split over the process grid (instead of --size)",
        "  --dims PXxPYxPZ the process grid (default: balanced, largest first)",
        "  --steps N       timed steps per variant (default 100)",
        "  --warm-up N     untimed steps before them (default 10)",
        "  --variant V     default, contig, datatype, overlap or all (default all)",
        "  --case C        droplet (default) or layer: the initial state",
        "Prints per variant the million lattice updates per second (MLUPS), the share of the time in the",
        "exchanges, the drift of mass and phase, the fastest cell and a checksum of every population.");

    private static final int MAX_SIZE = 1024;

    private int size = 64;
    private int[] global;
    private int[] dims;
    private int steps = 100;
    private int warmUp = 10;
    private List<Variant> variants = List.of(Variant.values());
    private LbmCase lbmCase = LbmCase.DROPLET;
    private boolean help;

    /**
     * @throws IllegalArgumentException naming the option, its value and what it takes.
     */
    static LbmOptions parse(final String[] args)
    {
        final LbmOptions options = new LbmOptions();
        for (int i = 0; i < args.length; i++)
        {
            if ("--help".equals(args[i]) || "-h".equals(args[i]))
            {
                options.help = true;
                continue;
            }
            if (i + 1 >= args.length)
            {
                throw new IllegalArgumentException("option " + args[i] + " needs a value");
            }
            options.set(args[i], args[++i]);
        }
        return options;
    }

    boolean help()
    {
        return help;
    }

    List<Variant> variants()
    {
        return variants;
    }

    LbmCase lbmCase()
    {
        return lbmCase;
    }

    int steps()
    {
        return steps;
    }

    int warmUp()
    {
        return warmUp;
    }

    /**
     * @param ranks in the job.
     * @return the process grid.
     */
    ProcessGrid grid(final int ranks)
    {
        if (dims == null)
        {
            return ProcessGrid.balanced(ranks);
        }
        final ProcessGrid grid = new ProcessGrid(dims[0], dims[1], dims[2]);
        if (grid.size() != ranks)
        {
            throw new IllegalArgumentException("--dims " + grid + " has " + grid.size() + " ranks, the job " + ranks);
        }
        return grid;
    }

    /**
     * @return global cells along x, y and z for the grid.
     */
    int[] global(final ProcessGrid grid)
    {
        if (global != null)
        {
            return global.clone();
        }
        return new int[] {size * grid.dim(0), size * grid.dim(1), size * grid.dim(2)};
    }

    private void set(final String option, final String value)
    {
        switch (option)
        {
            case "--size" -> size = number(option, value, 2, MAX_SIZE);
            case "--global" -> global = triple(option, value, 2, MAX_SIZE * 64);
            case "--dims" -> dims = triple(option, value, 1, 4096);
            case "--steps" -> steps = number(option, value, 1, Integer.MAX_VALUE);
            case "--warm-up" -> warmUp = number(option, value, 0, Integer.MAX_VALUE);
            case "--variant" -> variants = Variant.parse(value);
            case "--case" -> lbmCase = LbmCase.parse(value);
            default -> throw new IllegalArgumentException("unknown option " + option);
        }
    }

    private static int[] triple(final String option, final String value, final int min, final int max)
    {
        final String[] parts = value.split("x", -1);
        if (parts.length != 1 && parts.length != 3)
        {
            throw new IllegalArgumentException(option + " " + value + ": N or XxYxZ");
        }
        final int[] sizes = new int[3];
        for (int d = 0; d < 3; d++)
        {
            sizes[d] = number(option, parts[parts.length == 1 ? 0 : d], min, max);
        }
        return sizes;
    }

    private static int number(final String option, final String value, final int min, final int max)
    {
        final int parsed;
        try
        {
            parsed = Integer.parseInt(value);
        }
        catch (final NumberFormatException ex)
        {
            throw new IllegalArgumentException(option + " " + value + ": not a whole number");
        }
        if (parsed < min || parsed > max)
        {
            throw new IllegalArgumentException(option + " " + value + " outside [" + min + ", " + max + "]");
        }
        return parsed;
    }
}
