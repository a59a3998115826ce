package io.stagecoach.examples.lbm;

/**
 * The part of the global lattice a rank owns: {@code nx x ny x nz} interior cells at {@code (x0, y0, z0)} of the
 * global {@code gx x gy x gz} lattice, held with one ghost layer on every side, x fastest: cell (i, j, k),
 * 0 <= i < nx + 2, is element {@code (k * (ny + 2) + j) * (nx + 2) + i} of each field, interior cells at 1..n.
 *
 * @param nx interior cells in x.
 * @param ny interior cells in y.
 * @param nz interior cells in z.
 * @param x0 global x of interior cell i = 1.
 * @param y0 global y of interior cell j = 1.
 * @param z0 global z of interior cell k = 1.
 * @param gx global cells in x.
 * @param gy global cells in y.
 * @param gz global cells in z.
 */
record Block(int nx, int ny, int nz, int x0, int y0, int z0, int gx, int gy, int gz)
{
    /**
     * A block of the whole lattice, for one rank alone.
     */
    static Block whole(final int nx, final int ny, final int nz)
    {
        return new Block(nx, ny, nz, 0, 0, 0, nx, ny, nz);
    }

    /**
     * @param dimension 0 x, 1 y, 2 z.
     * @return interior cells along it.
     */
    int interior(final int dimension)
    {
        return dimension == 0 ? nx : dimension == 1 ? ny : nz;
    }

    /**
     * @param dimension 0 x, 1 y, 2 z.
     * @return cells along it with the ghost layers.
     */
    int extent(final int dimension)
    {
        return interior(dimension) + 2;
    }

    /**
     * @return elements of one field, ghosts included.
     */
    long cells()
    {
        return (long)(nx + 2) * (ny + 2) * (nz + 2);
    }

    /**
     * @return interior cells.
     */
    long interiorCells()
    {
        return (long)nx * ny * nz;
    }

    /**
     * @return cells of the global lattice.
     */
    long globalCells()
    {
        return (long)gx * gy * gz;
    }

    /**
     * @return the element of cell (i, j, k).
     */
    long index(final int i, final int j, final int k)
    {
        return ((long)k * (ny + 2) + j) * (nx + 2) + i;
    }

    /**
     * @return the global index of interior cell (i, j, k), x fastest.
     */
    long globalIndex(final int i, final int j, final int k)
    {
        return ((long)(z0 + k - 1) * gy + (y0 + j - 1)) * gx + (x0 + i - 1);
    }

    /**
     * @return bytes of a buffer of every population component.
     */
    long populationBytes()
    {
        return Lattice.COMPONENTS * cells() * Float.BYTES;
    }
}
