package io.stagecoach.benchmarks.datatype;

import io.stagecoach.protocol.datatype.Datatype;

/**
 * A halo face of an {@code n x n x n} grid of floats laid out x fastest (element {@code (i, j, k)} at index
 * {@code i + n * (j + n * k)}), taken at index 0 of its axis.
 */
public enum Face
{
    /**
     * {@code i} fixed: one float every {@code n} floats, {@code n * n} times.
     */
    X
    {
        Datatype datatype(final int n)
        {
            return Datatype.vector(n * n, 1, n, Datatype.FLOAT);
        }

        long gridIndex(final int n, final long element)
        {
            return element * n;
        }
    },

    /**
     * {@code j} fixed: a row of {@code n} floats every {@code n * n} floats, {@code n} times.
     */
    Y
    {
        Datatype datatype(final int n)
        {
            return Datatype.vector(n, n, n * n, Datatype.FLOAT);
        }

        long gridIndex(final int n, final long element)
        {
            return (element / n) * n * n + element % n;
        }
    },

    /**
     * {@code k} fixed: {@code n * n} contiguous floats.
     */
    Z
    {
        Datatype datatype(final int n)
        {
            return Datatype.contiguous(n * n, Datatype.FLOAT);
        }

        long gridIndex(final int n, final long element)
        {
            return element;
        }
    };

    /**
     * The uncommitted datatype an MPI user would build for this face of a grid of edge {@code n}.
     */
    abstract Datatype datatype(int n);

    /**
     * Index in the grid of the face's {@code element}-th float in packed order.
     */
    abstract long gridIndex(int n, long element);
}
