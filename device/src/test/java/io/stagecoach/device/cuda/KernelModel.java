package io.stagecoach.device.cuda;

import org.agrona.UnsafeApi;

/**
 * The pack and unpack kernels of stagecoach_kernels.cu transcribed to Java line for line (32-bit unsigned arithmetic,
 * the same magic-number division), run on host memory: tests compare it with the datatype engine's host pack, which
 * checks the host-side planning and the kernels' index arithmetic without a GPU.
 */
final class KernelModel
{
    private static final long MASK32 = 0xFFFF_FFFFL;

    private KernelModel()
    {
    }

    static void run(final KernelPlan plan, final long[] code, final boolean pack)
    {
        for (long t = 0; t < plan.units; t++)
        {
            final long offset = plan.tree ? treeOffset(plan, code, plan.first + t * plan.unit) : ndOffset(plan, t);
            final long typed = plan.typed + offset;
            final long packed = plan.packed + t * plan.unit;
            if (pack)
            {
                UnsafeApi.copyMemory(null, typed, null, packed, plan.unit);
            }
            else
            {
                UnsafeApi.copyMemory(null, packed, null, typed, plan.unit);
            }
        }
    }

    static long ndOffset(final KernelPlan plan, final long t)
    {
        return plan.wide ? ndOffsetWide(plan, plan.first + t) : ndOffsetNarrow(plan, (plan.first + t) & MASK32);
    }

    private static long fastDivide(final long n, final long divisor)
    {
        return FastDivisor.of(divisor).divide(n) & MASK32;
    }

    private static long ndOffsetNarrow(final KernelPlan a, final long p)
    {
        final long q0 = fastDivide(p, a.run);
        final long column = ((p - q0 * (a.run & MASK32)) & MASK32) * a.unit;
        if (a.dims == 1)
        {
            return column + q0 * a.stride1;
        }
        final long q1 = fastDivide(q0, a.n1);
        final long k1 = (q0 - q1 * (a.n1 & MASK32)) & MASK32;
        if (a.dims == 2)
        {
            return column + k1 * a.stride1 + q1 * a.stride2;
        }
        final long q2 = fastDivide(q1, a.n2);
        final long k2 = (q1 - q2 * (a.n2 & MASK32)) & MASK32;
        return column + k1 * a.stride1 + k2 * a.stride2 + q2 * a.stride3;
    }

    private static long ndOffsetWide(final KernelPlan a, final long p)
    {
        final long q0 = Long.divideUnsigned(p, a.run);
        final long column = (p - q0 * a.run) * a.unit;
        if (a.dims == 1)
        {
            return column + q0 * a.stride1;
        }
        final long q1 = Long.divideUnsigned(q0, a.n1);
        final long k1 = q0 - q1 * a.n1;
        if (a.dims == 2)
        {
            return column + k1 * a.stride1 + q1 * a.stride2;
        }
        final long q2 = Long.divideUnsigned(q1, a.n2);
        final long k2 = q1 - q2 * a.n2;
        return column + k1 * a.stride1 + k2 * a.stride2 + q2 * a.stride3;
    }

    static long treeOffset(final KernelPlan a, final long[] code, final long packedByte)
    {
        long p = packedByte;
        final long instance = p / a.size;
        p -= instance * a.size;
        long address = instance * a.extent;
        int node = 0;
        while (true)
        {
            final int n = node * 6;
            final long kind = code[n];
            address += code[n + 1];
            if (kind == 0)
            {
                return address + p;
            }
            if (kind == 1)
            {
                final int child = (int)code[n + 5];
                final long childBytes = code[child * 6 + 2];
                final long k = p / childBytes;
                p -= k * childBytes;
                address += k * code[n + 4];
                node = child;
            }
            else
            {
                final int table = (int)code[n + 4];
                int low = 0;
                int high = (int)code[n + 3] - 1;
                while (low < high)
                {
                    final int mid = (low + high + 1) >> 1;
                    if (code[table + 2 * mid + 1] <= p)
                    {
                        low = mid;
                    }
                    else
                    {
                        high = mid - 1;
                    }
                }
                p -= code[table + 2 * low + 1];
                node = (int)code[table + 2 * low];
            }
        }
    }
}
