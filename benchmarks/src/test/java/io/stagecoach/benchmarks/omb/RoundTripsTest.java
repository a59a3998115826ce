package io.stagecoach.benchmarks.omb;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RoundTripsTest
{
    @Test
    void shouldGiveOnlyTheAverageWhenNotRecording()
    {
        final RoundTrips roundTrips = RoundTrips.of(4, false);
        roundTrips.start(System.nanoTime());
        for (int i = 0; i < 4; i++)
        {
            roundTrips.ended();
        }
        assertArrayEquals(new double[]{ 1.0 }, roundTrips.oneWayUs(8_000, 4), 1e-9);
    }

    @Test
    void shouldGiveTheMedianAndNinetyNinthPercentileOfHalfRoundTrips() throws InterruptedException
    {
        final RoundTrips roundTrips = RoundTrips.of(3, true);
        final long startNs = System.nanoTime();
        roundTrips.start(startNs);
        roundTrips.ended();
        Thread.sleep(20);
        roundTrips.ended();
        roundTrips.ended();
        final double[] oneWayUs = roundTrips.oneWayUs(System.nanoTime() - startNs, 3);
        assertEquals(3, oneWayUs.length);
        assertTrue(oneWayUs[1] < 5_000, "median " + oneWayUs[1] + " us: two of three round trips were immediate");
        assertTrue(oneWayUs[2] >= 10_000, "99th percentile " + oneWayUs[2] + " us: the slept round trip, halved");
    }

    @Test
    void shouldRefuseToRecordMoreThanItsLimitNamingBoth()
    {
        final IllegalArgumentException ex =
            assertThrows(IllegalArgumentException.class, () -> RoundTrips.of(50_000_001, true));
        assertTrue(ex.getMessage().contains("50000001") && ex.getMessage().contains("50000000"), ex.getMessage());
    }

    @Test
    void shouldReadCompilerThreadTimeOnLinux()
    {
        final long ticks = CompilerThreads.cpuTicks();
        if (System.getProperty("os.name").startsWith("Linux"))
        {
            assertTrue(ticks >= 0, "compiler threads' clock ticks: " + ticks);
        }
    }
}
