package io.stagecoach.pipeline.stage;

import java.nio.ByteBuffer;
import java.util.SplittableRandom;

import io.stagecoach.device.Allocation;
import io.stagecoach.device.DeviceContext;
import io.stagecoach.device.DeviceKind;
import io.stagecoach.device.DeviceRuntime;
import io.stagecoach.device.DeviceStream;
import io.stagecoach.pipeline.trace.StageTracer;
import io.stagecoach.pipeline.transfer.ChunkPlan;
import io.stagecoach.pipeline.transfer.TransferPort;
import io.stagecoach.pipeline.transfer.TransferSpec;
import io.stagecoach.protocol.datatype.CompiledType;
import io.stagecoach.protocol.datatype.Datatype;
import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.apache.pekko.actor.typed.ActorSystem;

/**
 * One emulated device whose completions a {@link CompletionPump} delivers, a stage pipeline on it in a test kit's
 * actor system, and a strided message of eleven 4 KiB chunks (the last one 32 bytes) whose 12-byte blocks straddle
 * chunk boundaries, with its bytes from a seeded generator that prints its seed.
 */
final class StageFixture implements AutoCloseable
{
    static final int POOL_SLOTS = 4;
    static final int TRANSFER_SLOTS = 3;
    static final int CHUNK_BYTES = 4096;
    static final Datatype TYPE = Datatype.vector(7, 3, 5, Datatype.INT).commit();
    static final long COUNT = 488;

    final DeviceRuntime runtime;
    final CompletionPump pump;
    final StagePipeline pipeline;
    final CompiledType compiled = TYPE.compiled();
    final ChunkPlan plan = ChunkPlan.of(COUNT * TYPE.size(), CHUNK_BYTES);
    final int spanBytes = (int)(COUNT * TYPE.extent());
    private final SplittableRandom random;
    private long nextTransferId = 1;

    StageFixture(final ActorSystem<?> system, final String what)
    {
        runtime = DeviceRuntime.open(new DeviceContext().kind(DeviceKind.EMULATED).emulatedDeviceCount(1)
            .emulatedMemoryBytes(64L << 20).completionThread(false));
        pump = new CompletionPump(runtime);
        pipeline = new StagePipeline(system, runtime, POOL_SLOTS, CHUNK_BYTES, StageTracer.OFF);
        final long seed = Long.getLong("stagecoach.test.seed", System.nanoTime());
        System.out.println(what + ": seed " + seed + " (replay with -Dstagecoach.test.seed=" + seed + ")");
        random = new SplittableRandom(seed);
    }

    TransferSpec spec(final Allocation buffer, final TransferPort port)
    {
        return new TransferSpec(nextTransferId++, 1, buffer.address(), buffer.device(), COUNT, compiled, plan,
            TRANSFER_SLOTS, false, port);
    }

    /**
     * @return a value in [0, bound) from the seeded generator.
     */
    int nextInt(final int bound)
    {
        return random.nextInt(bound);
    }

    /**
     * @return a direct buffer of the message's span, every byte random.
     */
    ByteBuffer randomHost()
    {
        final byte[] bytes = new byte[spanBytes];
        random.nextBytes(bytes);
        return ByteBuffer.allocateDirect(spanBytes).put(bytes).flip();
    }

    /**
     * @return a direct buffer of the message's span, every byte {@code pattern}.
     */
    ByteBuffer filledHost(final byte pattern)
    {
        final ByteBuffer buffer = ByteBuffer.allocateDirect(spanBytes);
        new UnsafeBuffer(buffer).setMemory(0, spanBytes, pattern);
        return buffer;
    }

    /**
     * @return device memory of the message's span holding the host buffer's bytes.
     */
    Allocation toDevice(final ByteBuffer host)
    {
        final Allocation allocation = runtime.allocate(0, spanBytes);
        copy(allocation.address(), BufferUtil.address(host));
        return allocation;
    }

    /**
     * @return the bytes of device memory of the message's span.
     */
    ByteBuffer toHost(final Allocation allocation)
    {
        final ByteBuffer host = ByteBuffer.allocateDirect(spanBytes);
        copy(BufferUtil.address(host), allocation.address());
        return host;
    }

    /**
     * @return the packed bytes of a chunk of the message in host memory.
     */
    ByteBuffer packedChunk(final ByteBuffer typed, final int chunk)
    {
        final ByteBuffer packed = ByteBuffer.allocateDirect(plan.length(chunk));
        compiled.pack(BufferUtil.address(typed), COUNT, plan.offset(chunk), plan.length(chunk),
            BufferUtil.address(packed));
        return packed;
    }

    /**
     * @return the bytes a receive buffer that held {@code before} holds once the whole message is unpacked into it.
     */
    ByteBuffer unpacked(final ByteBuffer typed, final ByteBuffer before)
    {
        final ByteBuffer packed = ByteBuffer.allocateDirect((int)plan.packedBytes());
        compiled.pack(BufferUtil.address(typed), COUNT, 0, plan.packedBytes(), BufferUtil.address(packed));
        final ByteBuffer after = ByteBuffer.allocateDirect(spanBytes);
        after.put(before.duplicate().clear()).clear();
        compiled.unpack(BufferUtil.address(packed), COUNT, 0, plan.packedBytes(), BufferUtil.address(after));
        return after;
    }

    /**
     * @return a view of host memory the pipeline handed out.
     */
    static UnsafeBuffer at(final long address, final int lengthBytes)
    {
        return new UnsafeBuffer(address, lengthBytes);
    }

    public void close()
    {
        pipeline.close();
        pump.close();
        runtime.close();
    }

    private void copy(final long dst, final long src)
    {
        try (DeviceStream stream = runtime.createStream(0))
        {
            stream.copy(dst, src, spanBytes);
            stream.synchronize();
        }
    }
}
