package io.stagecoach.examples.lbm;

/**
 * A box of cells of a {@link Block}: {@code ni x nj x nk} cells from (i0, j0, k0), in block coordinates (ghosts at 0
 * and n + 1).
 *
 * @param i0 first i.
 * @param ni cells in x.
 * @param j0 first j.
 * @param nj cells in y.
 * @param k0 first k.
 * @param nk cells in z.
 */
record Box(int i0, int ni, int j0, int nj, int k0, int nk)
{
    /**
     * @return cells in the box.
     */
    long cells()
    {
        return (long)ni * nj * nk;
    }

    /**
     * @param dimension 0 x, 1 y, 2 z.
     * @return the box's first cell along it.
     */
    int start(final int dimension)
    {
        return dimension == 0 ? i0 : dimension == 1 ? j0 : k0;
    }

    /**
     * @param dimension 0 x, 1 y, 2 z.
     * @return the box's cells along it.
     */
    int size(final int dimension)
    {
        return dimension == 0 ? ni : dimension == 1 ? nj : nk;
    }

    /**
     * @return a box with the given starts and sizes per dimension.
     */
    static Box of(final int[] starts, final int[] sizes)
    {
        return new Box(starts[0], sizes[0], starts[1], sizes[1], starts[2], sizes[2]);
    }
}
