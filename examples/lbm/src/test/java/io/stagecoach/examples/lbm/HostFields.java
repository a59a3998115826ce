package io.stagecoach.examples.lbm;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.SplittableRandom;

import org.agrona.BufferUtil;

/**
 * A block's population buffer and phi in host memory, which the Java twins of the kernels work on directly, as the
 * emulated device's memory.
 */
final class HostFields
{
    final Block block;
    final ByteBuffer pops;
    final ByteBuffer next;
    final ByteBuffer phi;

    HostFields(final Block block)
    {
        this.block = block;
        this.pops = allocate(block.populationBytes());
        this.next = allocate(block.populationBytes());
        this.phi = allocate(block.cells() * Float.BYTES);
    }

    long popsAddress()
    {
        return BufferUtil.address(pops);
    }

    long nextAddress()
    {
        return BufferUtil.address(next);
    }

    long phiAddress()
    {
        return BufferUtil.address(phi);
    }

    float population(final ByteBuffer buffer, final int component, final int i, final int j, final int k)
    {
        return buffer.getFloat((int)((component * block.cells() + block.index(i, j, k)) * Float.BYTES));
    }

    void setPopulation(final ByteBuffer buffer, final int component, final int i, final int j, final int k,
        final float value)
    {
        buffer.putFloat((int)((component * block.cells() + block.index(i, j, k)) * Float.BYTES), value);
    }

    /**
     * Every element of both population buffers and phi set to a value of its own, ghosts included.
     */
    void fillDistinct()
    {
        for (int e = 0; e < pops.capacity() / Float.BYTES; e++)
        {
            pops.putFloat(e * Float.BYTES, e + 0.25f);
            next.putFloat(e * Float.BYTES, -e - 0.25f);
        }
        for (int e = 0; e < phi.capacity() / Float.BYTES; e++)
        {
            phi.putFloat(e * Float.BYTES, 1e6f + e);
        }
    }

    /**
     * A fluid near rest: f near its weights (density near 1), g's rest population an order parameter in (-1, 1) and
     * small moving ones, every cell different; ghosts too, standing for the neighbours' cells.
     */
    void fillFluid(final long seed)
    {
        final SplittableRandom random = new SplittableRandom(seed);
        final long cells = block.cells();
        for (long cell = 0; cell < cells; cell++)
        {
            for (int q = 0; q < Lattice.Q19; q++)
            {
                final float value = Lattice.weight(q) * (float)(1.0 + 0.1 * (random.nextDouble() - 0.5));
                pops.putFloat((int)((q * cells + cell) * Float.BYTES), value);
            }
            pops.putFloat((int)((Lattice.G * cells + cell) * Float.BYTES), (float)(1.6 * random.nextDouble() - 0.8));
            for (int q = 1; q < Lattice.Q7; q++)
            {
                pops.putFloat((int)(((Lattice.G + q) * cells + cell) * Float.BYTES),
                    (float)(0.02 * (random.nextDouble() - 0.5)));
            }
        }
    }

    private static ByteBuffer allocate(final long bytes)
    {
        return BufferUtil.allocateDirectAligned((int)bytes, 64).order(ByteOrder.nativeOrder());
    }
}
