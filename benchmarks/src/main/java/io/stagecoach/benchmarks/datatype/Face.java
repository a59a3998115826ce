package io.stagecoach.benchmarks.datatype;

import io.stagecoach.protocol.datatype.Datatype;
import org.agrona.UnsafeApi;

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

        void copyByHand(final long gridAddress, final int n, final long packedAddress)
        {
            final long strideBytes = (long)n * FLOAT_BYTES;
            final long elements = (long)n * n;
            for (long e = 0; e < elements; e++)
            {
                UnsafeApi.putInt(packedAddress + e * FLOAT_BYTES,
                    UnsafeApi.getInt(gridAddress + e * strideBytes));
            }
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

        void copyByHand(final long gridAddress, final int n, final long packedAddress)
        {
            final long rowBytes = (long)n * FLOAT_BYTES;
            final long strideBytes = rowBytes * n;
            for (long k = 0; k < n; k++)
            {
                UnsafeApi.copyMemory(gridAddress + k * strideBytes, packedAddress + k * rowBytes, rowBytes);
            }
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

        void copyByHand(final long gridAddress, final int n, final long packedAddress)
        {
            UnsafeApi.copyMemory(gridAddress, packedAddress, (long)n * n * FLOAT_BYTES);
        }
    };

    /**
     * The uncommitted datatype an MPI user would build for this face of a grid of edge {@code n}.
     */
    abstract Datatype datatype(int n);

    /**
     * Float size in bytes.
     */
    static final int FLOAT_BYTES = 4;

    /**
     * Index in the grid of the face's {@code element}-th float in packed order.
     */
    abstract long gridIndex(int n, long element);

    /**
     * Packs the face with the loop a programmer would write for this one shape: a 4-byte load and store per
     * float, a memory copy per row, or one memory copy. The reference for what plain Java reaches.
     */
    abstract void copyByHand(long gridAddress, int n, long packedAddress);
}
