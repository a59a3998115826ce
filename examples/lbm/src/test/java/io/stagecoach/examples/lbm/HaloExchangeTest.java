package io.stagecoach.examples.lbm;

import java.nio.ByteBuffer;

import io.stagecoach.device.DeviceContext;
import io.stagecoach.device.DeviceKind;
import io.stagecoach.device.DeviceRuntime;
import io.stagecoach.device.DeviceStream;
import io.stagecoach.rank.Communicator;
import io.stagecoach.rank.Stagecoach;
import io.stagecoach.rank.StagecoachContext;
import org.agrona.CloseHelper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The exchanges of every variant move each population exactly where periodic streaming takes it: with a collision
 * that changes nothing (all rates zero), a step is a pure permutation, so after n steps population q of cell x must be
 * the initial population q of cell x - n c_q, on a periodic lattice, bit for bit. Every initial value is distinct, so
 * a population lost at an edge, duplicated, or left stale in a ghost cell shows.
 */
@Timeout(120)
class HaloExchangeTest
{
    private static final Physics STILL = new Physics(0, 0, 0, 0, 0, 0);
    private static final int STEPS = 3;

    private static DeviceRuntime device;
    private static Communicator comm;

    @BeforeAll
    static void startRank()
    {
        device = DeviceRuntime.open(new DeviceContext().kind(DeviceKind.EMULATED).emulatedDeviceCount(1)
            .emulatedMemoryBytes(64L << 20));
        comm = Stagecoach.init(new StagecoachContext().deviceRuntime(device));
    }

    @AfterAll
    static void stopRank()
    {
        CloseHelper.quietCloseAll(comm, device);
    }

    @ParameterizedTest
    @EnumSource(Variant.class)
    void shouldMoveEveryPopulationWherePeriodicStreamingTakesIt(final Variant variant)
    {
        final Block block = Block.whole(5, 4, 3);
        final ProcessGrid grid = new ProcessGrid(1, 1, 1);
        try (Fields fields = new Fields(device, block);
            LbmKernels kernels = new LbmKernels(device);
            DeviceStream stream = device.createStream())
        {
            fields.clear();
            final ByteBuffer values = fields.hostField();
            for (int q = 0; q < Lattice.COMPONENTS; q++)
            {
                for (int k = 1; k <= block.nz(); k++)
                {
                    for (int j = 1; j <= block.ny(); j++)
                    {
                        for (int i = 1; i <= block.nx(); i++)
                        {
                            values.putFloat((int)(block.index(i, j, k) * Float.BYTES), initial(block, q, i, j, k));
                        }
                    }
                }
                fields.write(fields.current(0), q, values);
            }
            final int parity;
            try (Solver solver = new Solver(new HaloContext(comm, device, fields, stream, kernels), grid, 0, STILL,
                variant))
            {
                for (int step = 0; step < STEPS; step++)
                {
                    solver.step();
                }
                parity = solver.parity();
            }
            for (int q = 0; q < Lattice.COMPONENTS; q++)
            {
                final int d = q < Lattice.G ? q : q - Lattice.G;
                final ByteBuffer result = fields.read(fields.current(parity), q);
                for (int k = 1; k <= block.nz(); k++)
                {
                    for (int j = 1; j <= block.ny(); j++)
                    {
                        for (int i = 1; i <= block.nx(); i++)
                        {
                            final int from = wrap(i - STEPS * Lattice.CX[d], block.nx());
                            final float expected = initial(block, q, from,
                                wrap(j - STEPS * Lattice.CY[d], block.ny()),
                                wrap(k - STEPS * Lattice.CZ[d], block.nz()));
                            assertEquals(expected, result.getFloat((int)(block.index(i, j, k) * Float.BYTES)),
                                variant + ": component " + q + " of cell (" + i + ", " + j + ", " + k + ")");
                        }
                    }
                }
            }
        }
    }

    private static float initial(final Block block, final int q, final int i, final int j, final int k)
    {
        return 1.0f + (block.index(i, j, k) * Lattice.COMPONENTS + q) / 4096.0f;
    }

    private static int wrap(final int coordinate, final int n)
    {
        return Math.floorMod(coordinate - 1, n) + 1;
    }
}
