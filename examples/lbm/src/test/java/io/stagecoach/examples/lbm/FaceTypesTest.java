package io.stagecoach.examples.lbm;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import io.stagecoach.device.KernelArguments;
import org.agrona.BufferUtil;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every side of every halo message described twice, as the Datatype variant's derived datatype and as the box the
 * hand-written pack kernel of Default and Contig moves: both must pack the same elements in the same order, and unpack
 * them back to the same places.
 */
class FaceTypesTest
{
    private static final Block BLOCK = Block.whole(5, 4, 3);

    @ParameterizedTest
    @ValueSource(strings = {"phi", "axes", "z", "y", "x"})
    void shouldPackTheSameElementsAsTheHandWrittenKernel(final String phase)
    {
        final HostFields fields = new HostFields(BLOCK);
        fields.fillDistinct();
        for (final Transfer transfer : transfers(phase))
        {
            for (final Side side : new Side[] {transfer.send(), transfer.receive()})
            {
                final FaceTypes.Placed placed = FaceTypes.of(BLOCK, transfer.dimension(), side);
                final int bytes = (int)(side.elements() * Float.BYTES);
                assertEquals(bytes, placed.type().size(), transfer.face() + " " + side);
                final ByteBuffer byKernel = buffer(bytes);
                JavaKernels.pack(boxArguments(address(fields, side), BufferUtil.address(byKernel), side));
                final ByteBuffer byType = buffer(bytes);
                placed.type().pack(address(fields, side) + placed.offsetBytes(), 1, BufferUtil.address(byType), bytes,
                    0);
                assertEquals(byKernel, byType, transfer.face() + " " + side);
                assertDistinct(byType, side);

                final ByteBuffer unpacked = buffer(bytes);
                final HostFields copy = new HostFields(BLOCK);
                placed.type().unpack(BufferUtil.address(byType), bytes, 0, address(copy, side) + placed.offsetBytes(),
                    1);
                JavaKernels.pack(boxArguments(address(copy, side), BufferUtil.address(unpacked), side));
                assertEquals(byType, unpacked, "unpacked " + transfer.face() + " " + side);
                placed.type().free();
            }
        }
    }

    private static List<Transfer> transfers(final String phase)
    {
        final ProcessGrid grid = new ProcessGrid(1, 1, 1);
        return switch (phase)
        {
            case "phi" -> Halo.phi(BLOCK, grid, 0);
            case "axes" -> Halo.axes(BLOCK, grid, 0);
            default -> new ArrayList<>(Halo.populations(BLOCK, grid, 0, "xyz".indexOf(phase)));
        };
    }

    private static KernelArguments boxArguments(final long field, final long buffer, final Side side)
    {
        final Box box = side.box();
        final KernelArguments arguments = new KernelArguments().address(field).address(buffer)
            .i32(BLOCK.nx()).i32(BLOCK.ny()).i32(BLOCK.nz())
            .i32(box.i0()).i32(box.ni()).i32(box.j0()).i32(box.nj()).i32(box.k0()).i32(box.nk())
            .i32(side.components().length);
        for (int c = 0; c < 5; c++)
        {
            arguments.i32(c < side.components().length ? side.components()[c] : 0);
        }
        return arguments;
    }

    private static long address(final HostFields fields, final Side side)
    {
        return switch (side.field())
        {
            case PHI -> fields.phiAddress();
            case CURRENT -> fields.popsAddress();
            case NEXT -> fields.nextAddress();
        };
    }

    private static void assertDistinct(final ByteBuffer packed, final Side side)
    {
        final Set<Float> seen = new HashSet<>();
        for (int e = 0; e < packed.capacity(); e += Float.BYTES)
        {
            assertTrue(seen.add(packed.getFloat(e)), "element " + e / Float.BYTES + " of " + side + " twice");
        }
    }

    private static ByteBuffer buffer(final int bytes)
    {
        return BufferUtil.allocateDirectAligned(bytes, 64).order(ByteOrder.nativeOrder());
    }
}
