package io.stagecoach.pipeline.tune;

import java.io.IOException;
import java.io.Reader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Properties;

import io.stagecoach.device.DeviceContext;
import io.stagecoach.device.DeviceKind;
import io.stagecoach.device.DeviceRuntime;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The costs of the emulated device, measured in well under a second into a fresh cache folder (a private file with
 * every cost), read back from it rather than measured again, measured again when asked to; a file written before the
 * one-sided and eager paths' costs were measured, or with a cost that does not parse, is measured again and rewritten
 * whole rather than failing.
 */
class StageCostCacheTest
{
    private static final long SLOT_BYTES = 1L << 20;

    private static DeviceRuntime runtime;

    @TempDir
    Path folder;

    @BeforeAll
    static void open()
    {
        runtime = DeviceRuntime.open(new DeviceContext().kind(DeviceKind.EMULATED).emulatedDeviceCount(1)
            .emulatedMemoryBytes(128L << 20));
    }

    @AfterAll
    static void close()
    {
        runtime.close();
    }

    @Test
    void shouldMeasureIntoAFreshFolderOnceAndReadTheFileAfterwards() throws IOException
    {
        final Path tuning = folder.resolve("tuning");
        assertNull(StageCostCache.cached(tuning, runtime, 0, SLOT_BYTES));

        final long startNs = System.nanoTime();
        final DeviceCosts measured = StageCostCache.deviceCosts(runtime, 0, SLOT_BYTES, tuning, false);
        final long tookMs = (System.nanoTime() - startNs) / 1_000_000;

        assertTrue(tookMs < 1_000, "measured in " + tookMs + " ms");
        final Path file = StageCostCache.file(tuning, runtime, 0, SLOT_BYTES);
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(tuning)));
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
        assertEquals(11, load(file).size(), "every cost in the file");
        assertPlausible(measured);
        assertEquals(measured, StageCostCache.cached(tuning, runtime, 0, SLOT_BYTES));
        assertEquals(measured, StageCostCache.deviceCosts(runtime, 0, SLOT_BYTES, tuning, false), "read, not measured");

        final DeviceCosts again = StageCostCache.deviceCosts(runtime, 0, SLOT_BYTES, tuning, true);
        assertNotEquals(measured, again, "measured again when asked to");
        assertEquals(again, StageCostCache.cached(tuning, runtime, 0, SLOT_BYTES));
    }

    @Test
    void shouldMeasureAgainWhereAFileLacksTheCostsOfThePaths() throws IOException
    {
        final Path file = StageCostCache.file(folder, runtime, 0, SLOT_BYTES);
        final Properties old = new Properties();
        old.setProperty("pack.fixed.ns", "18000.0");
        old.setProperty("pack.bytes.per.ns", "47.3");
        old.setProperty("unpack.fixed.ns", "13100.0");
        old.setProperty("unpack.bytes.per.ns", "52.5");
        store(file, old);
        assertNull(StageCostCache.cached(folder, runtime, 0, SLOT_BYTES), "a file without the paths' costs");

        final DeviceCosts measured = StageCostCache.deviceCosts(runtime, 0, SLOT_BYTES, folder, false);

        assertPlausible(measured);
        assertNotEquals(18_000.0, measured.stages().packFixedNs(), "the stage costs are measured again too");
        assertEquals(11, load(file).size(), "rewritten with every cost");
        assertEquals(measured, StageCostCache.cached(folder, runtime, 0, SLOT_BYTES));
    }

    @Test
    void shouldMeasureAgainWhereACostDoesNotParse() throws IOException
    {
        final DeviceCosts measured = StageCostCache.deviceCosts(runtime, 0, SLOT_BYTES, folder, false);
        final Path file = StageCostCache.file(folder, runtime, 0, SLOT_BYTES);
        final Properties values = load(file);
        values.setProperty("copy.bytes.per.ns", "fast");
        store(file, values);

        final DeviceCosts again = StageCostCache.deviceCosts(runtime, 0, SLOT_BYTES, folder, false);

        assertNotNull(again);
        assertNotEquals(measured, again);
        assertEquals(again, StageCostCache.cached(folder, runtime, 0, SLOT_BYTES));
    }

    private static void assertPlausible(final DeviceCosts costs)
    {
        final PathCosts paths = costs.paths();
        final double[] all = { costs.stages().packFixedNs(), costs.stages().packBytesPerNs(),
            costs.stages().unpackFixedNs(), costs.stages().unpackBytesPerNs(), costs.streamWireBytesPerNs(),
            paths.copyFixedNs(), paths.copyBytesPerNs(), paths.kernelFixedNs(), paths.kernelBytesPerNs(),
            paths.inlinePackFixedNs(), paths.inlineUnpackFixedNs() };
        for (final double cost : all)
        {
            assertTrue(cost >= 0 && !Double.isInfinite(cost), costs::toString);
        }
        assertTrue(paths.copyBytesPerNs() > 0 && paths.kernelBytesPerNs() > 0, costs::toString);
        assertTrue(paths.inlinePackFixedNs() > 0 && paths.inlineUnpackFixedNs() > 0, costs::toString);
    }

    private static Properties load(final Path file) throws IOException
    {
        final Properties values = new Properties();
        try (Reader in = Files.newBufferedReader(file, StandardCharsets.UTF_8))
        {
            values.load(in);
        }
        return values;
    }

    private static void store(final Path file, final Properties values) throws IOException
    {
        try (Writer out = Files.newBufferedWriter(file, StandardCharsets.UTF_8))
        {
            values.store(out, null);
        }
    }
}
