package io.stagecoach.examples.lbm;

import io.stagecoach.protocol.datatype.Datatype;
import io.stagecoach.protocol.datatype.Order;

/**
 * The derived datatype of one side of a halo message, described where it lies in its field, as an MPI code defines
 * its face types once: a face across x is a subarray (one element every NX, in rows of the interior of the face), a
 * face across y a vector of rows of x ({@code vector(nk, ni, NX * NY)}), across z a vector of rows of x
 * ({@code vector(nj, ni, NX)}); a side of several components is the struct of one such face per component, each at
 * its component's displacement.
 */
final class FaceTypes
{
    private FaceTypes()
    {
    }

    /**
     * A datatype and where its displacement 0 lies.
     *
     * @param offsetBytes from the start of the field.
     * @param type        committed.
     */
    record Placed(long offsetBytes, Datatype type)
    {
    }

    /**
     * @param block     the rank's block.
     * @param dimension the face is across.
     * @param side      the box and components.
     * @return the side's datatype, committed.
     */
    static Placed of(final Block block, final int dimension, final Side side)
    {
        final Box box = side.box();
        final int[] components = side.components();
        final long componentBytes = block.cells() * Float.BYTES;
        final long cornerBytes = dimension == 0 ? 0 : block.index(box.i0(), box.j0(), box.k0()) * Float.BYTES;
        final Datatype face = face(block, dimension, box);
        if (components.length == 1)
        {
            return new Placed(components[0] * componentBytes + cornerBytes, face.commit());
        }
        final int[] blockLengths = new int[components.length];
        final long[] displacements = new long[components.length];
        final Datatype[] types = new Datatype[components.length];
        for (int c = 0; c < components.length; c++)
        {
            blockLengths[c] = 1;
            displacements[c] = components[c] * componentBytes + cornerBytes;
            types[c] = face;
        }
        return new Placed(0, Datatype.struct(blockLengths, displacements, types).commit());
    }

    private static Datatype face(final Block block, final int dimension, final Box box)
    {
        final int nx = block.extent(0);
        final int ny = block.extent(1);
        return switch (dimension)
        {
            case 0 -> Datatype.subarray(new int[] {block.extent(2), ny, nx}, new int[] {box.nk(), box.nj(), box.ni()},
                new int[] {box.k0(), box.j0(), box.i0()}, Order.C, Datatype.FLOAT);
            case 1 -> Datatype.vector(box.nk(), box.ni(), (long)nx * ny, Datatype.FLOAT);
            default -> Datatype.vector(box.nj(), box.ni(), nx, Datatype.FLOAT);
        };
    }
}
