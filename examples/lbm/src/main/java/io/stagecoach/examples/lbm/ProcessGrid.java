package io.stagecoach.examples.lbm;

import java.util.Arrays;

/**
 * The ranks as a periodic 3D grid of {@code px x py x pz}, x fastest (rank = (cz * py + cy) * px + cx), and the block
 * of the global lattice each owns.
 */
final class ProcessGrid
{
    private final int[] dims;

    ProcessGrid(final int px, final int py, final int pz)
    {
        if (px < 1 || py < 1 || pz < 1)
        {
            throw new IllegalArgumentException("process grid " + px + "x" + py + "x" + pz + " needs positive sizes");
        }
        this.dims = new int[] {px, py, pz};
    }

    /**
     * Dimensions as MPI_Dims_create makes them: as close to each other as they can be, the largest first.
     *
     * @param ranks at least one.
     * @return the grid.
     */
    static ProcessGrid balanced(final int ranks)
    {
        if (ranks < 1)
        {
            throw new IllegalArgumentException("a process grid needs at least one rank, not " + ranks);
        }
        int[] best = null;
        for (int px = 1; px <= ranks; px++)
        {
            for (int py = 1; py <= ranks / px; py++)
            {
                if (ranks % (px * py) == 0)
                {
                    final int[] candidate = {px, py, ranks / (px * py)};
                    Arrays.sort(candidate);
                    if (best == null || candidate[2] - candidate[0] < best[2] - best[0])
                    {
                        best = candidate;
                    }
                }
            }
        }
        return new ProcessGrid(best[2], best[1], best[0]);
    }

    /**
     * @return ranks in the grid.
     */
    int size()
    {
        return dims[0] * dims[1] * dims[2];
    }

    /**
     * @param dimension 0 x, 1 y, 2 z.
     * @return ranks along it.
     */
    int dim(final int dimension)
    {
        return dims[dimension];
    }

    /**
     * @param rank      in [0, size).
     * @param dimension 0 x, 1 y, 2 z.
     * @return the rank's coordinate along the dimension.
     */
    int coordinate(final int rank, final int dimension)
    {
        return dimension == 0 ? rank % dims[0] : dimension == 1 ? rank / dims[0] % dims[1] : rank / (dims[0] * dims[1]);
    }

    /**
     * @param rank      in [0, size).
     * @param dimension 0 x, 1 y, 2 z.
     * @param sign      +1 or -1.
     * @return the rank next to it that way, across the periodic boundary where it must.
     */
    int neighbour(final int rank, final int dimension, final int sign)
    {
        final int[] c = {coordinate(rank, 0), coordinate(rank, 1), coordinate(rank, 2)};
        c[dimension] = Math.floorMod(c[dimension] + sign, dims[dimension]);
        return (c[2] * dims[1] + c[1]) * dims[0] + c[0];
    }

    /**
     * @param rank the block's owner.
     * @param gx   global cells in x, a multiple of the ranks along x.
     * @param gy   global cells in y, likewise.
     * @param gz   global cells in z, likewise.
     * @return the rank's block.
     * @throws IllegalArgumentException when a global size does not split evenly, naming it.
     */
    Block block(final int rank, final int gx, final int gy, final int gz)
    {
        final int[] global = {gx, gy, gz};
        final int[] local = new int[3];
        for (int d = 0; d < 3; d++)
        {
            if (global[d] % dims[d] != 0 || global[d] / dims[d] < 2)
            {
                throw new IllegalArgumentException("global lattice " + gx + "x" + gy + "x" + gz + " does not split " +
                    "over the process grid " + this + ": " + "xyz".charAt(d) + " needs a multiple of " + dims[d] +
                    " with at least 2 cells per rank");
            }
            local[d] = global[d] / dims[d];
        }
        return new Block(local[0], local[1], local[2], coordinate(rank, 0) * local[0],
            coordinate(rank, 1) * local[1], coordinate(rank, 2) * local[2], gx, gy, gz);
    }

    @Override
    public String toString()
    {
        return dims[0] + "x" + dims[1] + "x" + dims[2];
    }
}
