package io.stagecoach.examples.lbm;

/**
 * The velocity sets: D3Q19 for the momentum distribution f, D3Q7 (rest and the six axes, directions 0-6 of D3Q19)
 * for the order-parameter distribution g; and the components of a population buffer, f_0 .. f_18 then g_0 .. g_6.
 * The CUDA kernels hold the same tables (lbm_kernels.cu).
 */
final class Lattice
{
    /** Directions of D3Q19. */
    static final int Q19 = 19;
    /** Directions of D3Q7. */
    static final int Q7 = 7;
    /** Component of g_0 in a population buffer. */
    static final int G = Q19;
    /** Components of a population buffer. */
    static final int COMPONENTS = Q19 + Q7;

    /** x of each direction: 0 rest, 1-6 the axes (+x, -x, +y, -y, +z, -z), 7-18 the edge diagonals. */
    static final int[] CX = {0, 1, -1, 0, 0, 0, 0, 1, -1, 1, -1, 1, -1, 1, -1, 0, 0, 0, 0};
    /** y of each direction. */
    static final int[] CY = {0, 0, 0, 1, -1, 0, 0, 1, -1, -1, 1, 0, 0, 0, 0, 1, -1, 1, -1};
    /** z of each direction. */
    static final int[] CZ = {0, 0, 0, 0, 0, 1, -1, 0, 0, 0, 0, 1, -1, -1, 1, 1, -1, -1, 1};

    private Lattice()
    {
    }

    /**
     * @param q a D3Q19 direction.
     * @return its weight: 1/3 at rest, 1/18 on an axis, 1/36 on a diagonal.
     */
    static float weight(final int q)
    {
        return q == 0 ? 1.0f / 3.0f : (q < 7 ? 1.0f / 18.0f : 1.0f / 36.0f);
    }

    /**
     * @param q a D3Q19 direction.
     * @return its component along a dimension (0 x, 1 y, 2 z).
     */
    static int c(final int q, final int dimension)
    {
        return dimension == 0 ? CX[q] : dimension == 1 ? CY[q] : CZ[q];
    }

    /**
     * @param dimension 0 x, 1 y, 2 z.
     * @param sign      +1 or -1.
     * @return the axis direction that points that way (1-6).
     */
    static int axis(final int dimension, final int sign)
    {
        return 1 + 2 * dimension + (sign > 0 ? 0 : 1);
    }

    /**
     * @param dimension 0 x, 1 y, 2 z.
     * @param sign      +1 or -1.
     * @return the four diagonal directions of D3Q19 that cross a face of that orientation, ascending.
     */
    static int[] diagonals(final int dimension, final int sign)
    {
        final int[] found = new int[4];
        int count = 0;
        for (int q = 7; q < Q19; q++)
        {
            if (c(q, dimension) == sign)
            {
                found[count++] = q;
            }
        }
        return found;
    }
}
