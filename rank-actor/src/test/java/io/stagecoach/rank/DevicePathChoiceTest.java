package io.stagecoach.rank;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.Consumer;

import io.stagecoach.device.DeviceContext;
import io.stagecoach.device.DeviceKind;
import io.stagecoach.device.DeviceRuntime;
import io.stagecoach.device.TestMemory;
import io.stagecoach.pipeline.tune.DeviceCosts;
import io.stagecoach.pipeline.tune.PathCosts;
import io.stagecoach.pipeline.tune.StageCostProbe;
import io.stagecoach.pipeline.tune.StageCosts;
import io.stagecoach.protocol.datatype.Datatype;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Which path the engine gives device messages between two ranks of one node when no setting fixes it: the path
 * model's, from the costs set on the ranks (so that the emulated device's measured costs, which vary from run to run,
 * do not decide): with costs derived from the H200's figures every message with a byte is got one-sided; with a device
 * whose inline staging costs less than the messages of a get, messages up to the eager threshold go eagerly and larger
 * ones one-sided; with gets slower than the pipeline, large messages take the pipeline. A fixed IPC threshold and
 * {@code stagecoach.device.path=staged} override the model. Every message arrives byte for byte.
 */
class DevicePathChoiceTest
{
    private static final Duration TIMEOUT = Duration.ofSeconds(20);
    private static final int THRESHOLD = 1024;
    private static final StageCosts H200_STAGES =
        new StageCosts(18_000, 47.3, StageCostProbe.ARENA_WIRE_FIXED_NS, Double.POSITIVE_INFINITY, 13_100, 52.5);
    private static final DeviceCosts H200 =
        new DeviceCosts(H200_STAGES, 9.404, new PathCosts(6_040, 1_830, 6_040, 1_770, 6_040, 6_040));
    private static final DeviceCosts CHEAP_STAGING =
        new DeviceCosts(H200_STAGES, 9.404, new PathCosts(6_040, 1_830, 6_040, 1_770, 500, 500));
    private static final DeviceCosts SLOW_GETS =
        new DeviceCosts(H200_STAGES, 9.404, new PathCosts(6_040, 1, 6_040, 1, 6_040, 6_040));
    private static final Consumer<StagecoachContext> DEFAULTS = context ->
    {
    };

    @TempDir
    static Path directory;

    private static DeviceRuntime device;

    @BeforeAll
    static void open()
    {
        device = DeviceRuntime.open(new DeviceContext().kind(DeviceKind.EMULATED).emulatedDeviceCount(1)
            .emulatedMemoryBytes(64L << 20));
    }

    @AfterAll
    static void close()
    {
        device.close();
    }

    @Test
    void shouldGetEveryMessageWithAByteOneSidedWithTheH200Costs()
    {
        assertPaths(H200, DEFAULTS, new String[]{ "one-sided", "one-sided", "one-sided", "one-sided" });
    }

    @Test
    void shouldSendSmallMessagesEagerlyWhereInlineStagingCostsLessThanAGet()
    {
        assertPaths(CHEAP_STAGING, DEFAULTS, new String[]{ "eager", "eager", "one-sided", "one-sided" });
    }

    @Test
    void shouldStageLargeMessagesWhereGetsAreSlowerThanThePipeline()
    {
        assertPaths(SLOW_GETS, DEFAULTS, new String[]{ "one-sided", "one-sided", "one-sided", "staged" });
    }

    @Test
    void shouldFollowAFixedIpcThresholdOverTheModel()
    {
        assertPaths(CHEAP_STAGING, context -> context.deviceIpcThresholdBytes(0),
            new String[]{ "one-sided", "one-sided", "one-sided", "one-sided" });
        assertPaths(H200, context -> context.deviceIpcThresholdBytes(-1),
            new String[]{ "eager", "eager", "one-sided", "one-sided" });
    }

    @Test
    void shouldNeverGetOneSidedOnTheStagedPath()
    {
        assertPaths(H200, context -> context.devicePath("staged"),
            new String[]{ "eager", "eager", "staged", "staged" });
    }

    /**
     * Sends 1 byte, the eager threshold, one byte more and 300,000 bytes from device to device memory and checks the
     * path each took by the ranks' counters.
     */
    private static void assertPaths(
        final DeviceCosts costs, final Consumer<StagecoachContext> settings, final String[] expected)
    {
        final int[] sizes = { 1, THRESHOLD, THRESHOLD + 1, 300_000 };
        try (LocalJob ranks = LocalJob.start(directory, 2, context ->
        {
            context.eagerThresholdBytes(THRESHOLD).deviceRuntime(device);
            settings.accept(context);
        }))
        {
            ranks.rank(0).engine().device().costs(costs);
            ranks.rank(1).engine().device().costs(costs);
            for (int i = 0; i < sizes.length; i++)
            {
                final int bytes = sizes[i];
                final long getsBefore = ranks.rank(1).engine().device().ipcGets();
                final long stagedBefore = ranks.rank(0).engine().device().transfersStarted();
                final ByteBuffer source = ByteBuffer.allocateDirect(bytes);
                for (int b = 0; b < bytes; b++)
                {
                    source.put(b, (byte)(b * 31 + i));
                }
                try (TestMemory from = TestMemory.device(device, 0, bytes);
                    TestMemory to = TestMemory.device(device, 0, bytes))
                {
                    from.write(source);
                    to.write(ByteBuffer.allocateDirect(bytes));
                    final Request receive = ranks.rank(1).irecv(to.address(), bytes, bytes, Datatype.BYTE, 0, i);
                    ranks.rank(0).isend(from.address(), bytes, bytes, Datatype.BYTE, 1, i).await(TIMEOUT);
                    assertEquals(bytes, receive.await(TIMEOUT).count(), "bytes received");
                    assertEquals(-1, source.mismatch(to.read()), bytes + " bytes arrive");
                }
                final long gets = ranks.rank(1).engine().device().ipcGets() - getsBefore;
                final long staged = ranks.rank(0).engine().device().transfersStarted() - stagedBefore;
                final String path = gets == 1 && staged == 0 ? "one-sided" : gets == 0 && staged == 1 ? "staged" :
                    gets == 0 && staged == 0 ? "eager" : "gets " + gets + ", staged " + staged;
                assertEquals(expected[i], path, bytes + " bytes");
            }
        }
    }
}
