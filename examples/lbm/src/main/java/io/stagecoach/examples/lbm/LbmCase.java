package io.stagecoach.examples.lbm;

import java.nio.ByteBuffer;
import java.util.Locale;

/**
 * The initial states, at rest (f at its equilibrium of density 1 and no velocity, g all in its rest population): a
 * function of the global position only, so that every decomposition of the lattice starts from the same bits.
 */
enum LbmCase
{
    /**
     * A spherical droplet of phase +1 in phase -1, of radius a quarter of the smallest global size, a little off the
     * centre (so that no symmetry of the lattice maps it onto itself).
     */
    DROPLET
    {
        @Override
        double phi(final Block block, final double x, final double y, final double z, final double width)
        {
            final double dx = x - 0.45 * block.gx();
            final double dy = y - 0.5 * block.gy();
            final double dz = z - 0.55 * block.gz();
            final double radius = 0.25 * Math.min(block.gx(), Math.min(block.gy(), block.gz()));
            return -StrictMath.tanh((Math.sqrt(dx * dx + dy * dy + dz * dz) - radius) / width);
        }
    },

    /**
     * A layer of phase +1 between z = gz/4 and 3gz/4 in phase -1, flat interfaces at their equilibrium profile: it
     * should stay at rest.
     */
    LAYER
    {
        @Override
        double phi(final Block block, final double x, final double y, final double z, final double width)
        {
            return StrictMath.tanh((z - 0.25 * block.gz()) / width) - StrictMath.tanh((z - 0.75 * block.gz()) / width) -
                1.0;
        }
    };

    /**
     * @return phi at the centre (x, y, z) of a global cell.
     */
    abstract double phi(Block block, double x, double y, double z, double width);

    /**
     * Writes the initial populations into the current buffer of parity 0, every other element zero.
     */
    void initialise(final Fields fields, final Physics physics)
    {
        final Block block = fields.block();
        fields.clear();
        final ByteBuffer values = fields.hostField();
        for (int q = 0; q < Lattice.Q19; q++)
        {
            fill(block, values, Lattice.weight(q));
            fields.write(fields.current(0), q, values);
        }
        fill(block, values, 0.0f);
        for (int q = 1; q < Lattice.Q7; q++)
        {
            fields.write(fields.current(0), Lattice.G + q, values);
        }
        for (int k = 1; k <= block.nz(); k++)
        {
            for (int j = 1; j <= block.ny(); j++)
            {
                for (int i = 1; i <= block.nx(); i++)
                {
                    final float value = (float)phi(block, block.x0() + i - 0.5, block.y0() + j - 0.5,
                        block.z0() + k - 0.5, physics.interfaceWidth());
                    values.putFloat((int)(block.index(i, j, k) * Float.BYTES), value);
                }
            }
        }
        fields.write(fields.current(0), Lattice.G, values);
    }

    private static void fill(final Block block, final ByteBuffer values, final float value)
    {
        for (int e = 0; e < values.capacity(); e += Float.BYTES)
        {
            values.putFloat(e, 0.0f);
        }
        for (int k = 1; k <= block.nz(); k++)
        {
            for (int j = 1; j <= block.ny(); j++)
            {
                for (int i = 1; i <= block.nx(); i++)
                {
                    values.putFloat((int)(block.index(i, j, k) * Float.BYTES), value);
                }
            }
        }
    }

    static LbmCase parse(final String name)
    {
        for (final LbmCase candidate : values())
        {
            if (candidate.name().equalsIgnoreCase(name))
            {
                return candidate;
            }
        }
        throw new IllegalArgumentException("--case " + name + ": one of droplet, layer");
    }

    @Override
    public String toString()
    {
        return name().toLowerCase(Locale.ROOT);
    }
}
