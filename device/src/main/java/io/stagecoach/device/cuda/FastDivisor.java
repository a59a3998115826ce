package io.stagecoach.device.cuda;

/**
 * Division of 32-bit unsigned values by an invariant divisor with one multiply-high, an add and a shift
 * (Granlund and Montgomery, "Division by invariant integers using multiplication", figure 4.1). The kernels compute
 * {@code q = (umulhi(n, multiplier) + n) >> shift} in 64-bit arithmetic; {@link #divide(long)} is the same formula.
 *
 * @param divisor    the divisor, in [1, 2^32).
 * @param multiplier m' = floor(2^32 * (2^l - d) / d) + 1 with l = ceil(log2 d), as an unsigned 32-bit value.
 * @param shift      l.
 */
record FastDivisor(long divisor, int multiplier, int shift)
{
    static final long LIMIT = 1L << 32;

    static FastDivisor of(final long divisor)
    {
        if (divisor < 1 || divisor >= LIMIT)
        {
            throw new IllegalArgumentException("divisor " + divisor + " outside [1, 2^32)");
        }
        final int shift = 64 - Long.numberOfLeadingZeros(divisor - 1);
        final long multiplier = Long.divideUnsigned(((1L << shift) - divisor) << 32, divisor) + 1;
        return new FastDivisor(divisor, (int)multiplier, shift);
    }

    long divide(final long n)
    {
        final long high = (n * (multiplier & 0xFFFF_FFFFL)) >>> 32;
        return (high + n) >>> shift;
    }
}
