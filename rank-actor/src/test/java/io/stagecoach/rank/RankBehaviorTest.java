package io.stagecoach.rank;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import io.stagecoach.device.MemoryRegion;
import io.stagecoach.device.MemoryType;
import io.stagecoach.pipeline.PackedHostBuffer;
import io.stagecoach.pipeline.StagingPath;
import io.stagecoach.protocol.datatype.CompiledType;
import io.stagecoach.protocol.datatype.Datatype;
import org.apache.pekko.actor.testkit.typed.annotations.JUnit5TestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.JUnit5TestKitBuilder;
import org.apache.pekko.actor.testkit.typed.javadsl.TestKitJUnit5Extension;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

/**
 * The rank actor on its own: device staging is asynchronous (the actor keeps serving messages while the device
 * works), its completion comes back as a message and becomes an engine command; peer deaths become commands.
 */
@ExtendWith(TestKitJUnit5Extension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RankBehaviorTest
{
    @JUnit5TestKit
    public ActorTestKit testKit = new JUnit5TestKitBuilder().build();

    @Test
    void shouldStageASendWithoutBlockingAndReportItToTheEngine()
    {
        final TestProbe<EngineCommand> commands = testKit.createTestProbe();
        final FakeStaging staging = new FakeStaging();
        final ActorRef<RankBehavior.Command> actor =
            testKit.spawn(RankBehavior.create(sink(commands), staging));
        final SendOperation send = deviceSend();

        actor.tell(new RankBehavior.StageOut(send));
        final StagingCall call = staging.nextCall();
        assertEquals(0x10_0000L, call.address);
        assertEquals(3, call.device);
        assertEquals(64, call.packedBytes);

        actor.tell(new RankBehavior.PeerDied(2, "exit status 137"));
        assertNotNull(commands.receiveMessage(), "the actor served a peer death while the device worked");

        commands.expectNoMessage(Duration.ofMillis(50));
        call.result.complete(new PackedHostBuffer(0x20_0000L, 64, () -> { }));
        assertNotNull(commands.receiveMessage(), "the staged buffer is handed to the engine");
    }

    @Test
    void shouldReportAFailedStagingToTheEngine()
    {
        final TestProbe<EngineCommand> commands = testKit.createTestProbe();
        final FakeStaging staging = new FakeStaging();
        final ActorRef<RankBehavior.Command> actor = testKit.spawn(RankBehavior.create(sink(commands), staging));

        actor.tell(new RankBehavior.StageOut(deviceSend()));
        staging.nextCall().result.completeExceptionally(new IllegalStateException("device lost"));
        assertNotNull(commands.receiveMessage());
    }

    private static CommandSink sink(final TestProbe<EngineCommand> commands)
    {
        return new CommandSink()
        {
            public int rank()
            {
                return 0;
            }

            public void submit(final EngineCommand command)
            {
                commands.getRef().tell(command);
            }
        };
    }

    private static SendOperation deviceSend()
    {
        final Datatype type = Datatype.LONG;
        final MemoryRegion region = new MemoryRegion(MemoryType.DEVICE, 3, 0x10_0000L, 4096, 0x10_0000L, true);
        return new SendOperation(new Request(null, "isend", 1, 7, 8, type), 1, 7, 0, false,
            new MessageBuffer(0x10_0000L, 0x10_0000L, 4096, region, null), 8, type.commit().compiled(),
            new SignatureCache().lookup(type, 8));
    }

    /**
     * A staging path whose completions the test controls.
     */
    private static final class FakeStaging implements StagingPath
    {
        private final LinkedBlockingQueue<StagingCall> calls = new LinkedBlockingQueue<>();

        StagingCall nextCall()
        {
            try
            {
                final StagingCall call = calls.poll(5, TimeUnit.SECONDS);
                assertNotNull(call, "the actor asked for staging");
                return call;
            }
            catch (final InterruptedException ex)
            {
                throw new IllegalStateException(ex);
            }
        }

        public PackedHostBuffer allocate(final long packedBytes)
        {
            throw new UnsupportedOperationException();
        }

        public CompletionStage<PackedHostBuffer> packToHost(
            final long deviceAddress, final int device, final long count, final CompiledType type,
            final long packedBytes)
        {
            final StagingCall call = new StagingCall(deviceAddress, device, packedBytes, new CompletableFuture<>());
            calls.add(call);
            return call.result;
        }

        public CompletionStage<Void> unpackToDevice(
            final PackedHostBuffer packed, final long lengthBytes, final long deviceAddress, final int device,
            final long count, final CompiledType type)
        {
            throw new UnsupportedOperationException();
        }

        public PackedHostBuffer packToHostNow(
            final long deviceAddress, final int device, final long count, final CompiledType type,
            final long packedBytes)
        {
            throw new UnsupportedOperationException();
        }

        public void unpackToDeviceNow(
            final PackedHostBuffer packed, final long lengthBytes, final long deviceAddress, final int device,
            final long count, final CompiledType type)
        {
            throw new UnsupportedOperationException();
        }

        public void close()
        {
        }
    }

    private record StagingCall(long address, int device, long packedBytes, CompletableFuture<PackedHostBuffer> result)
    {
    }
}
