package io.stagecoach.examples.lbm;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import io.stagecoach.device.DeviceContext;
import io.stagecoach.device.DeviceKind;
import io.stagecoach.device.DeviceRuntime;
import io.stagecoach.rank.Communicator;
import io.stagecoach.rank.Stagecoach;
import io.stagecoach.rank.StagecoachContext;
import org.agrona.CloseHelper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The whole example on one rank of this JVM (a singleton job, so every halo message goes to the rank itself) on the
 * emulated device: the four variants compute the same bits, conserve mass and phase to round-off, and a flat layer
 * at its equilibrium profile stays at rest.
 */
@Timeout(120)
class LbmRunTest
{
    private static DeviceRuntime device;
    private static Communicator comm;

    @BeforeAll
    static void startRank()
    {
        device = DeviceRuntime.open(new DeviceContext().kind(DeviceKind.EMULATED).emulatedDeviceCount(1)
            .emulatedMemoryBytes(64L << 20));
        comm = Stagecoach.init(new StagecoachContext().deviceRuntime(device));
    }

    @AfterAll
    static void stopRank()
    {
        CloseHelper.quietCloseAll(comm, device);
    }

    @Test
    void shouldComputeTheSameBitsWithEveryVariantAndConserveMassAndPhase()
    {
        final List<VariantResult> results = run("--global", "8x6x5", "--steps", "6", "--warm-up", "2");

        assertEquals(4, results.size());
        final long checksum = results.get(0).after().checksum();
        for (final VariantResult result : results)
        {
            assertEquals(checksum, result.after().checksum(), result.variant() + " against Default");
            assertTrue(result.before().checksum() != checksum, "the populations changed");
            assertTrue(Math.abs(result.after().massDrift(result.before())) < 1e-6,
                result.variant() + " mass drift " + result.after().massDrift(result.before()));
            assertTrue(Math.abs(result.after().phaseDrift(result.before(), 240)) < 1e-6,
                result.variant() + " phase drift per cell " + result.after().phaseDrift(result.before(), 240));
            assertTrue(result.after().maxSpeed() > 1e-6, "the droplet moves the fluid as it relaxes");
        }
    }

    @Test
    void shouldKeepAFlatLayerAtRest()
    {
        final List<VariantResult> results = run("--global", "4x4x16", "--steps", "40", "--warm-up", "0",
            "--variant", "datatype", "--case", "layer");

        final Totals after = results.get(0).after();
        assertTrue(after.maxSpeed() < 1e-3, "fastest cell of the layer after 40 steps: " + after.maxSpeed());
        assertTrue(Math.abs(after.massDrift(results.get(0).before())) < 1e-6, "mass drift");
    }

    private static List<VariantResult> run(final String... args)
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final List<VariantResult> results = new LbmRun(comm, device, LbmOptions.parse(args),
            new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8))
            .run();
        System.out.print(out.toString(StandardCharsets.UTF_8));
        return results;
    }
}
