package io.stagecoach.device.cuda;

import org.agrona.UnsafeApi;

/**
 * The pack, unpack and copy kernels of stagecoach_kernels.cu transcribed to Java line for line (32-bit unsigned
 * arithmetic, the same magic-number division), run on host memory: tests compare it with the datatype engine's host
 * pack, which checks the host-side planning and the kernels' index arithmetic without a GPU.
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
        final long p = plan.first + t;
        return plan.wide ?
            ndOffsetWide(p, plan.unit, plan.dims, plan.run, plan.n1, plan.n2, plan.stride1, plan.stride2,
                plan.stride3) :
            ndOffsetNarrow(p & MASK32, plan.unit, plan.dims, plan.run, plan.n1, plan.n2, plan.stride1, plan.stride2,
                plan.stride3);
    }

    /**
     * The copy kernels of stagecoach_kernels.cu (sc_copy_*), on host memory.
     */
    static void copy(final CopyPlan plan, final long[] sourceCode, final long[] destinationCode)
    {
        for (long t = 0; t < plan.units; t++)
        {
            final long from;
            final long to;
            if (plan.tree)
            {
                final long packedByte = plan.first + t * plan.unit;
                from = treeOffset(sourceCode, plan.source.size, plan.source.extent, packedByte);
                to = treeOffset(destinationCode, plan.destination.size, plan.destination.extent, packedByte);
            }
            else
            {
                final long p = plan.first + t;
                from = plan.sourceTree ? treeOffset(sourceCode, plan.source.size, plan.source.extent, p * plan.unit) :
                    layoutOffset(plan, plan.source, p);
                to = plan.destinationTree ?
                    treeOffset(destinationCode, plan.destination.size, plan.destination.extent, p * plan.unit) :
                    layoutOffset(plan, plan.destination, p);
            }
            UnsafeApi.copyMemory(null, plan.source.base + from, null, plan.destination.base + to, plan.unit);
        }
    }

    static long layoutOffset(final CopyPlan plan, final CopyPlan.Layout a, final long p)
    {
        return plan.wide ?
            ndOffsetWide(p, plan.unit, 3, a.run, a.n1, a.n2, a.strides[0], a.strides[1], a.strides[2]) :
            ndOffsetNarrow(p & MASK32, plan.unit, 3, a.run, a.n1, a.n2, a.strides[0], a.strides[1], a.strides[2]);
    }

    private static long fastDivide(final long n, final long divisor)
    {
        return FastDivisor.of(divisor).divide(n) & MASK32;
    }

    private static long ndOffsetNarrow(final long p, final int unit, final int dims, final long run, final long n1,
        final long n2, final long stride1, final long stride2, final long stride3)
    {
        final long q0 = fastDivide(p, run);
        final long column = ((p - q0 * (run & MASK32)) & MASK32) * unit;
        if (dims == 1)
        {
            return column + q0 * stride1;
        }
        final long q1 = fastDivide(q0, n1);
        final long k1 = (q0 - q1 * (n1 & MASK32)) & MASK32;
        if (dims == 2)
        {
            return column + k1 * stride1 + q1 * stride2;
        }
        final long q2 = fastDivide(q1, n2);
        final long k2 = (q1 - q2 * (n2 & MASK32)) & MASK32;
        return column + k1 * stride1 + k2 * stride2 + q2 * stride3;
    }

    private static long ndOffsetWide(final long p, final int unit, final int dims, final long run, final long n1,
        final long n2, final long stride1, final long stride2, final long stride3)
    {
        final long q0 = Long.divideUnsigned(p, run);
        final long column = (p - q0 * run) * unit;
        if (dims == 1)
        {
            return column + q0 * stride1;
        }
        final long q1 = Long.divideUnsigned(q0, n1);
        final long k1 = q0 - q1 * n1;
        if (dims == 2)
        {
            return column + k1 * stride1 + q1 * stride2;
        }
        final long q2 = Long.divideUnsigned(q1, n2);
        final long k2 = q1 - q2 * n2;
        return column + k1 * stride1 + k2 * stride2 + q2 * stride3;
    }

    static long treeOffset(final KernelPlan a, final long[] code, final long packedByte)
    {
        return treeOffset(code, a.size, a.extent, packedByte);
    }

    private static long treeOffset(final long[] code, final long size, final long extent, final long packedByte)
    {
        long p = packedByte;
        final long instance = p / size;
        p -= instance * size;
        long address = instance * extent;
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
