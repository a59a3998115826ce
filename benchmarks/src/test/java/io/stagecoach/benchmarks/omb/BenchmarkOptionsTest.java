package io.stagecoach.benchmarks.omb;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BenchmarkOptionsTest
{
    @Test
    void shouldRecogniseAskingForTheUsageAndNameEveryOption()
    {
        assertTrue(BenchmarkOptions.wantsHelp(new String[]{ "H", "H", "--help" }));
        assertTrue(BenchmarkOptions.wantsHelp(new String[]{ "-h" }));
        assertFalse(BenchmarkOptions.wantsHelp(new String[]{ "--grids", "128" }));
        final String usage = BenchmarkOptions.usage("halo");
        for (final String option : new String[]{ "stagecoach run -n 2 halo", "--min-size", "--max-size",
            "--iterations", "--skip", "--window", "--grids", "--warm-up", "--percentiles" })
        {
            assertTrue(usage.contains(option), option);
        }
    }

    @Test
    void shouldDefaultToHostBuffersAndOmbSizes()
    {
        final BenchmarkOptions options = BenchmarkOptions.parse("latency", new String[0]);

        assertEquals(MemoryLocation.HOST, options.location(0));
        assertEquals(MemoryLocation.HOST, options.location(1));
        assertFalse(options.anyDevice());
        assertEquals(1, options.minSizeBytes());
        assertEquals(4L << 20, options.maxSizeBytes());
        assertEquals(64, options.window());
        assertArrayEquals(new int[]{ 128, 256 }, options.grids());
        assertEquals(20_000, options.warmUpRoundTrips());
    }

    @Test
    void shouldTakeAProgramsOwnLargestSizeUnlessMaxSizeIsGiven()
    {
        assertEquals(ActorLatency.DEFAULT_MAX_SIZE_BYTES,
            BenchmarkOptions.parse(ActorLatency.PROGRAM, new String[]{ "H", "H" }, 8192).maxSizeBytes());
        assertEquals(65536, BenchmarkOptions.parse(ActorLatency.PROGRAM, new String[]{ "--max-size", "65536" }, 8192)
            .maxSizeBytes());
        final IllegalArgumentException tooLarge = assertThrows(IllegalArgumentException.class,
            () -> BenchmarkOptions.parse(ActorLatency.PROGRAM, new String[]{ "--min-size", "16384" }, 8192));
        assertEquals("actor-latency: --min-size 16384 is larger than --max-size 8192", tooLarge.getMessage());
    }

    @Test
    void shouldTakePercentilesAsAFlagAnywhere()
    {
        final BenchmarkOptions first = BenchmarkOptions.parse("latency", new String[]{ "--percentiles", "--max-size",
            "8" });
        final BenchmarkOptions last = BenchmarkOptions.parse("latency", new String[]{ "D", "H", "--percentiles" });

        assertTrue(first.percentiles());
        assertEquals(8, first.maxSizeBytes());
        assertTrue(last.percentiles());
        assertFalse(BenchmarkOptions.parse("latency", new String[0]).percentiles());
    }

    @Test
    void shouldTurnTheJitWarmUpOff()
    {
        final BenchmarkOptions options = BenchmarkOptions.parse("halo", new String[]{ "D", "D", "--warm-up", "0" });

        assertEquals(0, options.warmUpRoundTrips());
    }

    @Test
    void shouldTakeTheBufferLocationOfEachRank()
    {
        final BenchmarkOptions options = BenchmarkOptions.parse("bw", new String[]{ "H", "d", "--window", "16" });

        assertEquals(MemoryLocation.HOST, options.location(0));
        assertEquals(MemoryLocation.DEVICE, options.location(1));
        assertTrue(options.anyDevice());
        assertEquals(16, options.window());
    }

    @Test
    void shouldScaleIterationsDownAboveTheThresholdUnlessGiven()
    {
        final BenchmarkOptions defaults = BenchmarkOptions.parse("latency", new String[0]);
        final BenchmarkOptions given = BenchmarkOptions.parse("latency", new String[]{ "--iterations", "7",
            "--skip", "0" });

        assertEquals(10_000, defaults.iterations(8192, 8192, 10_000, 1_000));
        assertEquals(1_000, defaults.iterations(8193, 8192, 10_000, 1_000));
        assertEquals(10, defaults.skip(8193, 8192, 100, 10));
        assertEquals(7, given.iterations(8193, 8192, 10_000, 1_000));
        assertEquals(0, given.skip(1, 8192, 100, 10));
    }

    @Test
    void shouldNameTheUnknownOption()
    {
        final IllegalArgumentException error = assertThrows(IllegalArgumentException.class,
            () -> BenchmarkOptions.parse("halo", new String[]{ "--size", "4" }));

        assertTrue(error.getMessage().contains("--size"), error.getMessage());
    }

    @Test
    void shouldNameTheValueAndTheLimit()
    {
        final IllegalArgumentException window = assertThrows(IllegalArgumentException.class,
            () -> BenchmarkOptions.parse("bw", new String[]{ "--window", "4096" }));
        final IllegalArgumentException location = assertThrows(IllegalArgumentException.class,
            () -> BenchmarkOptions.parse("bw", new String[]{ "H", "X" }));
        final IllegalArgumentException sizes = assertThrows(IllegalArgumentException.class,
            () -> BenchmarkOptions.parse("bw", new String[]{ "--min-size", "64", "--max-size", "8" }));

        assertEquals("--window 4096 is outside [1, 1024]", window.getMessage());
        assertEquals("buffer location 'X' is neither H (host) nor D (device)", location.getMessage());
        assertEquals("bw: --min-size 64 is larger than --max-size 8", sizes.getMessage());
    }

    @Test
    void shouldRejectAnOptionWithoutValue()
    {
        final IllegalArgumentException error = assertThrows(IllegalArgumentException.class,
            () -> BenchmarkOptions.parse("latency", new String[]{ "--max-size" }));

        assertEquals("latency: option --max-size needs a value", error.getMessage());
    }
}
