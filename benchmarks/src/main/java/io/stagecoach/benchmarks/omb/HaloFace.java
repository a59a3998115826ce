package io.stagecoach.benchmarks.omb;

import io.stagecoach.protocol.datatype.Datatype;

/**
 * A halo face of an {@code n^3} grid of floats laid out x fastest (cell {@code (i, j, k)} at index
 * {@code i + n * (j + n * k)}), as the derived datatype an MPI user builds for it, placed at a plane of its axis.
 */
enum HaloFace
{
    /** {@code i} fixed: one float every {@code NX} floats, {@code NY * NZ} times. */
    X("vector(NY*NZ, 1, NX, FLOAT)")
    {
        Datatype datatype(final int n)
        {
            return Datatype.vector(n * n, 1, n, Datatype.FLOAT);
        }

        long cell(final int n, final int plane, final long a, final long b)
        {
            return plane + (long)n * (a + (long)n * b);
        }
    },

    /** {@code j} fixed: a row of {@code NX} floats every {@code NX * NY} floats, {@code NZ} times. */
    Y("vector(NZ, NX, NX*NY, FLOAT)")
    {
        Datatype datatype(final int n)
        {
            return Datatype.vector(n, n, n * n, Datatype.FLOAT);
        }

        long cell(final int n, final int plane, final long a, final long b)
        {
            return a + (long)n * (plane + (long)n * b);
        }
    },

    /** {@code k} fixed: {@code NX * NY} contiguous floats. */
    Z("contiguous(NX*NY, FLOAT)")
    {
        Datatype datatype(final int n)
        {
            return Datatype.contiguous(n * n, Datatype.FLOAT);
        }

        long cell(final int n, final int plane, final long a, final long b)
        {
            return a + (long)n * (b + (long)n * plane);
        }
    };

    private final String construction;

    HaloFace(final String construction)
    {
        this.construction = construction;
    }

    String construction()
    {
        return construction;
    }

    /**
     * @return the uncommitted datatype of this face of a grid of edge {@code n}.
     */
    abstract Datatype datatype(int n);

    /**
     * @return index of the cell at coordinates {@code (a, b)} of the face taken at {@code plane} of its axis, with
     * {@code a} the faster running of the two other axes.
     */
    abstract long cell(int n, int plane, long a, long b);

    /**
     * @return byte offset of the face's first cell at {@code plane}: where displacement 0 of its datatype lies.
     */
    long offsetBytes(final int n, final int plane)
    {
        return cell(n, plane, 0, 0) * Float.BYTES;
    }
}
