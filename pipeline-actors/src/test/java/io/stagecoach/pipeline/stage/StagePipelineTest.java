package io.stagecoach.pipeline.stage;

import java.time.Duration;

import io.stagecoach.device.Allocation;
import io.stagecoach.device.DeviceContext;
import io.stagecoach.device.DeviceKind;
import io.stagecoach.device.DeviceRuntime;
import io.stagecoach.device.DeviceStream;
import io.stagecoach.device.pool.BufferSlot;
import io.stagecoach.pipeline.stage.RecordingPort.ChunkPacked;
import io.stagecoach.pipeline.stage.RecordingPort.Fact;
import io.stagecoach.pipeline.trace.StageTracer;
import io.stagecoach.pipeline.transfer.ChunkPlan;
import io.stagecoach.pipeline.transfer.TransferSpec;
import io.stagecoach.protocol.datatype.Datatype;
import org.agrona.concurrent.UnsafeBuffer;
import org.apache.pekko.actor.testkit.typed.annotations.JUnit5TestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.JUnit5TestKitBuilder;
import org.apache.pekko.actor.testkit.typed.javadsl.TestKitJUnit5Extension;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The stage pipeline as a whole on the emulated device: closing it frees its pinned slots only once the device work
 * queued on its streams, which writes them, is done.
 */
@ExtendWith(TestKitJUnit5Extension.class)
class StagePipelineTest
{
    private static final int CHUNK_BYTES = 4096;
    private static final int POOL_SLOTS = 4;
    private static final int CHUNKS = 3;
    private static final int BUSY_BYTES = 64 << 20;
    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    @JUnit5TestKit
    public ActorTestKit testKit = new JUnit5TestKitBuilder().build();

    @Test
    void shouldFreeItsSlotsOnCloseOnlyOnceTheDeviceWorkWritingThemIsDone()
    {
        try (DeviceRuntime runtime = DeviceRuntime.open(new DeviceContext().kind(DeviceKind.EMULATED)
            .emulatedDeviceCount(1).emulatedMemoryBytes(256L << 20)))
        {
            final StagePipeline pipeline = new StagePipeline(testKit.system(), runtime, POOL_SLOTS, CHUNK_BYTES,
                StageTracer.OFF);
            final TestProbe<Fact> port = testKit.createTestProbe();
            final Allocation source = runtime.allocate(0, CHUNKS * CHUNK_BYTES);
            final Allocation busyFrom = runtime.allocate(0, BUSY_BYTES);
            final Allocation busyTo = runtime.allocate(0, BUSY_BYTES);
            final DeviceStream packs = pipeline.packStream(0);
            synchronized (packs)
            {
                for (int i = 0; i < 8; i++)
                {
                    packs.copy(busyTo.address(), busyFrom.address(), BUSY_BYTES);
                }
            }
            final BufferSlot spare = pipeline.tryLeaseSlot(true, false);
            final long slotsAddress = spare.pool().allocation().address();
            final long slotsBytes = spare.pool().allocation().lengthBytes();
            spare.release();
            pipeline.startSend(new TransferSpec(1, 1, source.address(), 0, CHUNKS * CHUNK_BYTES,
                Datatype.BYTE.compiled(), ChunkPlan.of(CHUNKS * CHUNK_BYTES, CHUNK_BYTES), CHUNKS, false,
                new RecordingPort(port))).matched();
            Waits.until(() -> pipeline.freeSlots() == 3 * POOL_SLOTS - CHUNKS, TIMEOUT,
                "the send to lease its slots and queue its packs behind the copies");

            pipeline.close();

            final Allocation reused = runtime.allocatePinned(slotsBytes);
            assertEquals(slotsAddress, reused.address(), "pinned memory allocated after the close takes the slots'");
            final UnsafeBuffer memory = new UnsafeBuffer(reused.address(), (int)slotsBytes);
            memory.setMemory(0, (int)slotsBytes, (byte)0x5A);
            for (int chunk = 0; chunk < CHUNKS; chunk++)
            {
                port.expectMessageClass(ChunkPacked.class, TIMEOUT);
            }
            for (int i = 0; i < slotsBytes; i++)
            {
                assertEquals((byte)0x5A, memory.getByte(i), "byte " + i + " of memory allocated after the close");
            }
            reused.free();
            source.free();
            busyFrom.free();
            busyTo.free();
        }
    }
}
