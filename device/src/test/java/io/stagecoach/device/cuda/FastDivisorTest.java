package io.stagecoach.device.cuda;

import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class FastDivisorTest
{
    @Test
    void shouldDivideLikeIntegerDivisionAcrossTheUnsignedRange()
    {
        final long seed = Long.getLong("stagecoach.test.seed", System.nanoTime());
        System.out.println("fast divisor: seed " + seed);
        final SplittableRandom random = new SplittableRandom(seed);
        final long[] edges = {1, 2, 3, 5, 7, 16, 127, 128, 129, 1000, 65535, 65536, 65537, (1L << 31) - 1, 1L << 31,
            (1L << 31) + 1, (1L << 32) - 2, (1L << 32) - 1};
        for (final long divisor : edges)
        {
            check(divisor, random);
        }
        for (int i = 0; i < 2000; i++)
        {
            final long divisor = 1 + random.nextLong(random.nextBoolean() ? 4096 : (1L << 32) - 1);
            check(divisor, random);
        }
    }

    @Test
    void shouldRefuseDivisorsOutsideThirtyTwoBits()
    {
        assertThrows(IllegalArgumentException.class, () -> FastDivisor.of(0));
        assertThrows(IllegalArgumentException.class, () -> FastDivisor.of(1L << 32));
    }

    private static void check(final long divisor, final SplittableRandom random)
    {
        final FastDivisor fast = FastDivisor.of(divisor);
        final long[] numerators = {0, 1, divisor - 1, divisor, divisor + 1, (1L << 32) - 1, (1L << 32) - divisor,
            2 * divisor - 1};
        for (final long n : numerators)
        {
            if (n >= 0 && n < (1L << 32))
            {
                assertEquals(n / divisor, fast.divide(n), n + " / " + divisor);
            }
        }
        for (int i = 0; i < 200; i++)
        {
            final long n = random.nextLong(1L << 32);
            assertEquals(n / divisor, fast.divide(n), n + " / " + divisor);
        }
    }
}
