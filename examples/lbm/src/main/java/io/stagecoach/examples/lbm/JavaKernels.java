package io.stagecoach.examples.lbm;

import io.stagecoach.device.KernelArguments;
import org.agrona.UnsafeApi;

import static io.stagecoach.examples.lbm.Lattice.CX;
import static io.stagecoach.examples.lbm.Lattice.CY;
import static io.stagecoach.examples.lbm.Lattice.CZ;

/**
 * The Java twins of the CUDA kernels of lbm_kernels.cu, which the emulated device runs: each takes the same arguments
 * in the same order and does every thread's work, with the same arithmetic in the same order (Java rounds every float
 * operation on its own, as the kernels do when compiled with {@code -fmad=false}), so that both compute the same
 * bits. Change both together. Device addresses are addresses of this process on the emulated device.
 */
final class JavaKernels
{
    static final String UPDATE = "lbm_update";
    static final String COLLIDE = "lbm_collide";
    static final String STREAM = "lbm_stream";
    static final String PACK = "lbm_pack";
    static final String UNPACK = "lbm_unpack";

    /** Every interior cell. */
    static final int ALL = 0;
    /** Cells two or more from the ghost layer, which read nothing a neighbour sends. */
    static final int INNER = 1;
    /** Interior cells that are not inner. */
    static final int SHELL = 2;

    private JavaKernels()
    {
    }

    /**
     * lbm_update(pops, phi, nx, ny, nz, region): phi = sum of g.
     */
    static void update(final KernelArguments a)
    {
        final long pops = a.longAt(0);
        final long phi = a.longAt(1);
        final Block block = Block.whole(a.intAt(2), a.intAt(3), a.intAt(4));
        final int region = a.intAt(5);
        final long cells = block.cells();
        for (int k = 1; k <= block.nz(); k++)
        {
            for (int j = 1; j <= block.ny(); j++)
            {
                for (int i = 1; i <= block.nx(); i++)
                {
                    if (inRegion(block, i, j, k, region))
                    {
                        final long index = block.index(i, j, k);
                        final long g = pops + (Lattice.G * cells + index) * Float.BYTES;
                        float p = get(g);
                        for (int q = 1; q < Lattice.Q7; q++)
                        {
                            p = p + get(g + q * cells * Float.BYTES);
                        }
                        put(phi + index * Float.BYTES, p);
                    }
                }
            }
        }
    }

    /**
     * lbm_collide(pops, phi, nx, ny, nz, region, a, kappa, omegaF, omegaG, gamma, forcing): BGK collision of f with
     * Guo's forcing of mu grad phi, and of g towards the Cahn-Hilliard equilibrium, in place.
     */
    static void collide(final KernelArguments a)
    {
        final long pops = a.longAt(0);
        final long phi = a.longAt(1);
        final Block block = Block.whole(a.intAt(2), a.intAt(3), a.intAt(4));
        final int region = a.intAt(5);
        final Physics physics = new Physics(a.floatAt(6), a.floatAt(7), a.floatAt(8), a.floatAt(9), a.floatAt(10),
            a.floatAt(11));
        final float[] f = new float[Lattice.Q19];
        for (int k = 1; k <= block.nz(); k++)
        {
            for (int j = 1; j <= block.ny(); j++)
            {
                for (int i = 1; i <= block.nx(); i++)
                {
                    if (inRegion(block, i, j, k, region))
                    {
                        collideCell(pops, phi, block, block.index(i, j, k), physics, f);
                    }
                }
            }
        }
    }

    /**
     * lbm_stream(src, dst, nx, ny, nz): push every population of every interior cell to the neighbour it points at.
     */
    static void stream(final KernelArguments a)
    {
        final long src = a.longAt(0);
        final long dst = a.longAt(1);
        final Block block = Block.whole(a.intAt(2), a.intAt(3), a.intAt(4));
        final long cells = block.cells();
        final long stride = block.nx() + 2;
        final long plane = stride * (block.ny() + 2);
        for (int k = 1; k <= block.nz(); k++)
        {
            for (int j = 1; j <= block.ny(); j++)
            {
                for (int i = 1; i <= block.nx(); i++)
                {
                    final long index = block.index(i, j, k);
                    for (int q = 0; q < Lattice.COMPONENTS; q++)
                    {
                        final int d = q < Lattice.G ? q : q - Lattice.G;
                        final long to = index + CX[d] + CY[d] * stride + CZ[d] * plane;
                        put(dst + (q * cells + to) * Float.BYTES, get(src + (q * cells + index) * Float.BYTES));
                    }
                }
            }
        }
    }

    /**
     * lbm_pack(field, buffer, nx, ny, nz, i0, ni, j0, nj, k0, nk, count, c0, c1, c2, c3, c4).
     */
    static void pack(final KernelArguments a)
    {
        move(a, true);
    }

    /**
     * lbm_unpack(field, buffer, nx, ny, nz, i0, ni, j0, nj, k0, nk, count, c0, c1, c2, c3, c4).
     */
    static void unpack(final KernelArguments a)
    {
        move(a, false);
    }

    private static void collideCell(
        final long pops, final long phi, final Block block, final long index, final Physics physics, final float[] f)
    {
        final long cells = block.cells();
        final long stride = block.nx() + 2;
        final long plane = stride * (block.ny() + 2);
        final float p = get(phi + index * Float.BYTES);
        final float pxp = get(phi + (index + 1) * Float.BYTES);
        final float pxm = get(phi + (index - 1) * Float.BYTES);
        final float pyp = get(phi + (index + stride) * Float.BYTES);
        final float pym = get(phi + (index - stride) * Float.BYTES);
        final float pzp = get(phi + (index + plane) * Float.BYTES);
        final float pzm = get(phi + (index - plane) * Float.BYTES);
        final float lap = ((pxp + pxm) + (pyp + pym)) + (pzp + pzm) - 6.0f * p;
        final float mu = physics.a() * p * (p * p - 1.0f) - physics.kappa() * lap;
        final float fx = mu * (0.5f * (pxp - pxm));
        final float fy = mu * (0.5f * (pyp - pym));
        final float fz = mu * (0.5f * (pzp - pzm));

        final long fp = pops + index * Float.BYTES;
        for (int q = 0; q < Lattice.Q19; q++)
        {
            f[q] = get(fp + q * cells * Float.BYTES);
        }
        float rho = f[0];
        for (int q = 1; q < Lattice.Q19; q++)
        {
            rho = rho + f[q];
        }
        final float jx = (((f[1] - f[2]) + (f[7] - f[8])) + ((f[9] - f[10]) + (f[11] - f[12]))) + (f[13] - f[14]);
        final float jy = (((f[3] - f[4]) + (f[7] - f[8])) + ((f[10] - f[9]) + (f[15] - f[16]))) + (f[17] - f[18]);
        final float jz = (((f[5] - f[6]) + (f[11] - f[12])) + ((f[14] - f[13]) + (f[15] - f[16]))) + (f[18] - f[17]);
        final float ux = (jx + 0.5f * fx) / rho;
        final float uy = (jy + 0.5f * fy) / rho;
        final float uz = (jz + 0.5f * fz) / rho;
        final float usq = ux * ux + uy * uy + uz * uz;
        final float uf = ux * fx + uy * fy + uz * fz;
        final float omegaF = physics.omegaF();
        final float forcing = physics.forcing();
        float feqMoving = 0.0f;
        float sourceMoving = 0.0f;
        for (int q = 1; q < Lattice.Q19; q++)
        {
            final float w = Lattice.weight(q);
            final float cu = CX[q] * ux + CY[q] * uy + CZ[q] * uz;
            final float cf = CX[q] * fx + CY[q] * fy + CZ[q] * fz;
            final float feq = w * rho * (1.0f + 3.0f * cu + 4.5f * cu * cu - 1.5f * usq);
            final float source = w * (3.0f * (cf - uf) + 9.0f * cu * cf);
            feqMoving = feqMoving + feq;
            sourceMoving = sourceMoving + source;
            put(fp + q * cells * Float.BYTES, f[q] - omegaF * (f[q] - feq) + forcing * source);
        }
        put(fp, f[0] - omegaF * (f[0] - (rho - feqMoving)) - forcing * sourceMoving);

        final long gp = pops + (Lattice.G * cells + index) * Float.BYTES;
        final float omegaG = physics.omegaG();
        final float gm = physics.gamma() * mu;
        final float g0 = get(gp);
        put(gp, g0 - omegaG * (g0 - (p - 3.0f * gm)));
        for (int q = 1; q < Lattice.Q7; q++)
        {
            final float cu = CX[q] * ux + CY[q] * uy + CZ[q] * uz;
            final float geq = 0.5f * (gm + p * cu);
            final float g = get(gp + q * cells * Float.BYTES);
            put(gp + q * cells * Float.BYTES, g - omegaG * (g - geq));
        }
    }

    private static void move(final KernelArguments a, final boolean pack)
    {
        final long field = a.longAt(0);
        final long buffer = a.longAt(1);
        final Block block = Block.whole(a.intAt(2), a.intAt(3), a.intAt(4));
        final Box box = new Box(a.intAt(5), a.intAt(6), a.intAt(7), a.intAt(8), a.intAt(9), a.intAt(10));
        final int count = a.intAt(11);
        long e = 0;
        for (int c = 0; c < count; c++)
        {
            final long component = (long)a.intAt(12 + c) * block.cells();
            for (int k = box.k0(); k < box.k0() + box.nk(); k++)
            {
                for (int j = box.j0(); j < box.j0() + box.nj(); j++)
                {
                    for (int i = box.i0(); i < box.i0() + box.ni(); i++)
                    {
                        final long element = field + (component + block.index(i, j, k)) * Float.BYTES;
                        final long packed = buffer + e * Float.BYTES;
                        if (pack)
                        {
                            put(packed, get(element));
                        }
                        else
                        {
                            put(element, get(packed));
                        }
                        e++;
                    }
                }
            }
        }
    }

    static boolean inRegion(final Block block, final int i, final int j, final int k, final int region)
    {
        if (region == ALL)
        {
            return true;
        }
        final boolean inner = i >= 2 && i <= block.nx() - 1 && j >= 2 && j <= block.ny() - 1 && k >= 2 &&
            k <= block.nz() - 1;
        return region == INNER ? inner : !inner;
    }

    private static float get(final long address)
    {
        return UnsafeApi.getFloat(address);
    }

    private static void put(final long address, final float value)
    {
        UnsafeApi.putFloat(address, value);
    }
}
