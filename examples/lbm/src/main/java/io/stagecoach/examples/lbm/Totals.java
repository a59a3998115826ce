package io.stagecoach.examples.lbm;

import java.nio.ByteBuffer;

/**
 * What the whole lattice holds, read back from every rank's current populations: the mass (sum of f), the phase
 * (sum of g, the order parameter's total), the fastest cell (|sum of f c| / sum of f, without the force's half step)
 * and a checksum of every interior population's bits that does not depend on how the lattice is split: the sum, modulo
 * 2^64, of a hash of (global cell, component, bits), so that runs on 1, 2 or 4 ranks that compute the same bits have
 * the same checksum.
 *
 * @param mass     sum of f over every cell.
 * @param phase    sum of g over every cell.
 * @param maxSpeed largest |u| of a cell.
 * @param checksum of every population's bits.
 */
record Totals(double mass, double phase, double maxSpeed, long checksum)
{
    /**
     * Reads the populations of parity {@code parity}'s current buffer and reduces over the ranks.
     */
    static Totals measure(final Fields fields, final int parity, final Collectives collectives)
    {
        final Block block = fields.block();
        final int cells = (int)block.interiorCells();
        final double[] rho = new double[cells];
        final double[][] momentum = new double[3][cells];
        double mass = 0;
        double phase = 0;
        long checksum = 0;
        for (int q = 0; q < Lattice.COMPONENTS; q++)
        {
            final ByteBuffer values = fields.read(fields.current(parity), q);
            int cell = 0;
            for (int k = 1; k <= block.nz(); k++)
            {
                for (int j = 1; j <= block.ny(); j++)
                {
                    for (int i = 1; i <= block.nx(); i++)
                    {
                        final float value = values.getFloat((int)(block.index(i, j, k) * Float.BYTES));
                        checksum += hash(block.globalIndex(i, j, k) * Lattice.COMPONENTS + q,
                            Float.floatToRawIntBits(value));
                        if (q < Lattice.G)
                        {
                            mass += value;
                            rho[cell] += value;
                            momentum[0][cell] += Lattice.CX[q] * (double)value;
                            momentum[1][cell] += Lattice.CY[q] * (double)value;
                            momentum[2][cell] += Lattice.CZ[q] * (double)value;
                        }
                        else
                        {
                            phase += value;
                        }
                        cell++;
                    }
                }
            }
        }
        double maxSpeed = 0;
        for (int cell = 0; cell < cells; cell++)
        {
            final double jx = momentum[0][cell];
            final double jy = momentum[1][cell];
            final double jz = momentum[2][cell];
            maxSpeed = Math.max(maxSpeed, Math.sqrt(jx * jx + jy * jy + jz * jz) / rho[cell]);
        }
        final double[] sums = collectives.sum(new double[] {mass, phase});
        final double[] maxima = collectives.max(new double[] {maxSpeed});
        final long[] hashes = collectives.sumLongs(new long[] {checksum});
        return new Totals(sums[0], sums[1], maxima[0], hashes[0]);
    }

    /**
     * @return whether every total is a number: a run that went unstable ends with NaN or infinite populations.
     */
    boolean isFinite()
    {
        return Double.isFinite(mass) && Double.isFinite(phase) && Double.isFinite(maxSpeed);
    }

    /**
     * @return the relative change of the mass from {@code before} to this.
     */
    double massDrift(final Totals before)
    {
        return (mass - before.mass) / before.mass;
    }

    /**
     * @param cells of the global lattice.
     * @return the change of the phase from {@code before} to this, per cell.
     */
    double phaseDrift(final Totals before, final long cells)
    {
        return (phase - before.phase) / cells;
    }

    private static long hash(final long key, final int bits)
    {
        long z = key * 0x9E37_79B9_7F4A_7C15L + bits;
        z = (z ^ (z >>> 30)) * 0xBF58_476D_1CE4_E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D0_49BB_1331_11EBL;
        return z ^ (z >>> 31);
    }
}
