package io.stagecoach.examples.lbm;

import java.util.ArrayList;
import java.util.List;

/**
 * The boundary exchanges of a step, as the phases of messages each is made of. Every message moves a box of cells
 * one cell thick across a face of the block; a phase's messages are independent and go at once, phases run in order.
 * <ul>
 * <li>(2) phi, D3Q7-based: the boundary plane of phi into the neighbour's ghost plane, over the interior of the face
 * (the D3Q7 stencils of lap phi and grad phi reach no edge). One phase of six messages.</li>
 * <li>(4) f, D3Q7-based: after the collision, the axis population of f that leaves through a face (f_1 through +x, ...)
 * goes from the boundary plane of the current populations straight to the neighbour's first plane of the populations
 * being streamed into, where the streaming of step (5) would have put it. One phase of six messages.</li>
 * <li>(6) f and g, D3Q19-based: after the push streaming, what landed in a ghost plane (the four diagonal populations
 * of f and the population of g that leave through the face) goes to the neighbour's first plane. A diagonal leaves
 * through an edge, so it travels as two messages: the z phase sends whole ghost planes (ghost edges included), the y
 * phase ghost rows over x with its ghosts, the x phase the interior of the face, each after the one before has
 * landed: what the z phase put in a neighbour's x ghost plane the x phase takes on to the diagonal neighbour.</li>
 * </ul>
 * Boxes are in block coordinates: a message travelling +x leaves plane nx (boundary) or nx + 1 (ghost) and lands in
 * plane 0 (ghost) or 1 (first plane) of the neighbour.
 */
final class Halo
{
    static final int PHI_TAG = 100;
    static final int AXES_TAG = 200;
    static final int POPULATIONS_TAG = 300;

    private Halo()
    {
    }

    /**
     * @return exchange (2): phi's boundary planes into the neighbours' ghost planes.
     */
    static List<Transfer> phi(final Block block, final ProcessGrid grid, final int rank)
    {
        final List<Transfer> transfers = new ArrayList<>();
        for (int d = 0; d < 3; d++)
        {
            for (final int sign : new int[] {1, -1})
            {
                final int n = block.interior(d);
                final Side send = new Side(Side.Field.PHI, face(block, d, sign > 0 ? n : 1, false), new int[] {0});
                final Side receive = new Side(Side.Field.PHI, face(block, d, sign > 0 ? 0 : n + 1, false),
                    new int[] {0});
                transfers.add(transfer(grid, rank, d, sign, PHI_TAG, send, receive));
            }
        }
        return transfers;
    }

    /**
     * @return exchange (4): f's axis populations from the current boundary planes into the neighbours' next first
     * planes.
     */
    static List<Transfer> axes(final Block block, final ProcessGrid grid, final int rank)
    {
        final List<Transfer> transfers = new ArrayList<>();
        for (int d = 0; d < 3; d++)
        {
            for (final int sign : new int[] {1, -1})
            {
                final int n = block.interior(d);
                final int[] axis = {Lattice.axis(d, sign)};
                final Side send = new Side(Side.Field.CURRENT, face(block, d, sign > 0 ? n : 1, false), axis);
                final Side receive = new Side(Side.Field.NEXT, face(block, d, sign > 0 ? 1 : n, false), axis);
                transfers.add(transfer(grid, rank, d, sign, AXES_TAG, send, receive));
            }
        }
        return transfers;
    }

    /**
     * @param dimension of the phase: 2, 1 and 0 run in that order.
     * @return one phase of exchange (6): the diagonal populations of f and the population of g that the streaming
     * pushed into a ghost plane, into the neighbours' first planes.
     */
    static List<Transfer> populations(final Block block, final ProcessGrid grid, final int rank, final int dimension)
    {
        final List<Transfer> transfers = new ArrayList<>();
        for (final int sign : new int[] {1, -1})
        {
            final int n = block.interior(dimension);
            final int[] diagonals = Lattice.diagonals(dimension, sign);
            final int[] components = {diagonals[0], diagonals[1], diagonals[2], diagonals[3],
                Lattice.G + Lattice.axis(dimension, sign)};
            final Side send = new Side(Side.Field.NEXT, face(block, dimension, sign > 0 ? n + 1 : 0, true),
                components);
            final Side receive = new Side(Side.Field.NEXT, face(block, dimension, sign > 0 ? 1 : n, true),
                components);
            transfers.add(transfer(grid, rank, dimension, sign, POPULATIONS_TAG, send, receive));
        }
        return transfers;
    }

    /**
     * A plane across a dimension: the interior of the face, or with {@code forwarding} the ranges exchange (6) needs:
     * ghosts included along the dimensions whose phases come later (x and y in the z phase, x in the y phase), so
     * that a diagonal that crossed one face reaches the ghost plane of the next in time to be sent on.
     */
    static Box face(final Block block, final int dimension, final int plane, final boolean forwarding)
    {
        final int[] starts = new int[3];
        final int[] sizes = new int[3];
        for (int d = 0; d < 3; d++)
        {
            final boolean withGhosts = forwarding && d < dimension;
            starts[d] = d == dimension ? plane : withGhosts ? 0 : 1;
            sizes[d] = d == dimension ? 1 : withGhosts ? block.extent(d) : block.interior(d);
        }
        return Box.of(starts, sizes);
    }

    private static Transfer transfer(
        final ProcessGrid grid, final int rank, final int dimension, final int sign, final int baseTag,
        final Side send, final Side receive)
    {
        final int tag = baseTag + 2 * dimension + (sign > 0 ? 0 : 1);
        return new Transfer(dimension, sign, grid.neighbour(rank, dimension, sign),
            grid.neighbour(rank, dimension, -sign), tag, send, receive);
    }
}
