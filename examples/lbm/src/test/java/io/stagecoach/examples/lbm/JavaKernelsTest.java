package io.stagecoach.examples.lbm;

import io.stagecoach.device.KernelArguments;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The Java twins of the kernels on host memory: what each step does to a cell, checked against its definition.
 */
class JavaKernelsTest
{
    private static final Block BLOCK = Block.whole(5, 4, 3);
    private static final Physics PHYSICS = Physics.standard();

    @Test
    void shouldSumGIntoPhiInTheCellsOfTheRegionOnly()
    {
        final HostFields fields = new HostFields(BLOCK);
        fields.fillFluid(1);
        JavaKernels.update(new KernelArguments().address(fields.popsAddress()).address(fields.phiAddress())
            .i32(5).i32(4).i32(3).i32(JavaKernels.INNER));

        for (int k = 0; k <= 4; k++)
        {
            for (int j = 0; j <= 5; j++)
            {
                for (int i = 0; i <= 6; i++)
                {
                    final float phi = fields.phi.getFloat((int)(BLOCK.index(i, j, k) * Float.BYTES));
                    final boolean inner = i >= 2 && i <= 4 && j >= 2 && j <= 3 && k == 2;
                    float sum = fields.population(fields.pops, Lattice.G, i, j, k);
                    for (int q = 1; q < Lattice.Q7; q++)
                    {
                        sum = sum + fields.population(fields.pops, Lattice.G + q, i, j, k);
                    }
                    assertEquals(inner ? sum : 0.0f, phi, "phi of cell (" + i + ", " + j + ", " + k + ")");
                }
            }
        }
    }

    @Test
    void shouldConserveMassAndPhaseOfEveryCellInTheCollision()
    {
        final HostFields fields = new HostFields(BLOCK);
        fields.fillFluid(2);
        final HostFields before = new HostFields(BLOCK);
        before.pops.put(fields.pops.duplicate().clear());
        phiEverywhere(fields);

        JavaKernels.collide(collideArguments(fields, JavaKernels.ALL));

        double largestChange = 0;
        for (int k = 1; k <= 3; k++)
        {
            for (int j = 1; j <= 4; j++)
            {
                for (int i = 1; i <= 5; i++)
                {
                    final double massBefore = sum(before, 0, Lattice.Q19, i, j, k);
                    assertEquals(massBefore, sum(fields, 0, Lattice.Q19, i, j, k), 1e-6 * massBefore);
                    assertEquals(sum(before, Lattice.G, Lattice.Q7, i, j, k),
                        sum(fields, Lattice.G, Lattice.Q7, i, j, k), 1e-6);
                    largestChange = Math.max(largestChange, Math.abs(
                        fields.population(fields.pops, 7, i, j, k) - before.population(before.pops, 7, i, j, k)));
                }
            }
        }
        assertEquals(true, largestChange > 1e-4, "the collision changed the populations: " + largestChange);
    }

    @Test
    void shouldLeaveAUniformPhaseAtRestUnchangedButForRoundOff()
    {
        final HostFields fields = new HostFields(BLOCK);
        final long cells = BLOCK.cells();
        for (long cell = 0; cell < cells; cell++)
        {
            for (int q = 0; q < Lattice.Q19; q++)
            {
                fields.pops.putFloat((int)((q * cells + cell) * Float.BYTES), Lattice.weight(q));
            }
            fields.pops.putFloat((int)((Lattice.G * cells + cell) * Float.BYTES), 1.0f);
        }
        phiEverywhere(fields);

        JavaKernels.collide(collideArguments(fields, JavaKernels.ALL));

        for (int q = 0; q < Lattice.COMPONENTS; q++)
        {
            final float expected = q < Lattice.G ? Lattice.weight(q) : q == Lattice.G ? 1.0f : 0.0f;
            assertEquals(expected, fields.population(fields.pops, q, 3, 2, 2), 1e-7f, "component " + q);
        }
    }

    @Test
    void shouldPushEveryPopulationOfEveryInteriorCellToItsNeighbour()
    {
        final HostFields fields = new HostFields(BLOCK);
        fields.fillDistinct();

        JavaKernels.stream(new KernelArguments().address(fields.popsAddress()).address(fields.nextAddress())
            .i32(5).i32(4).i32(3));

        for (int q = 0; q < Lattice.COMPONENTS; q++)
        {
            final int d = q < Lattice.G ? q : q - Lattice.G;
            for (int k = 1; k <= 3; k++)
            {
                for (int j = 1; j <= 4; j++)
                {
                    for (int i = 1; i <= 5; i++)
                    {
                        assertEquals(fields.population(fields.pops, q, i, j, k), fields.population(fields.next, q,
                            i + Lattice.CX[d], j + Lattice.CY[d], k + Lattice.CZ[d]), "component " + q);
                    }
                }
            }
        }
    }

    private static KernelArguments collideArguments(final HostFields fields, final int region)
    {
        return new KernelArguments().address(fields.popsAddress()).address(fields.phiAddress())
            .i32(BLOCK.nx()).i32(BLOCK.ny()).i32(BLOCK.nz()).i32(region)
            .f32(PHYSICS.a()).f32(PHYSICS.kappa()).f32(PHYSICS.omegaF()).f32(PHYSICS.omegaG()).f32(PHYSICS.gamma())
            .f32(PHYSICS.forcing());
    }

    private static void phiEverywhere(final HostFields fields)
    {
        for (int k = 0; k < BLOCK.extent(2); k++)
        {
            for (int j = 0; j < BLOCK.extent(1); j++)
            {
                for (int i = 0; i < BLOCK.extent(0); i++)
                {
                    fields.phi.putFloat((int)(BLOCK.index(i, j, k) * Float.BYTES),
                        (float)sum(fields, Lattice.G, Lattice.Q7, i, j, k));
                }
            }
        }
    }

    private static double sum(final HostFields fields, final int first, final int count, final int i, final int j,
        final int k)
    {
        double sum = 0;
        for (int q = first; q < first + count; q++)
        {
            sum += fields.population(fields.pops, q, i, j, k);
        }
        return sum;
    }
}
