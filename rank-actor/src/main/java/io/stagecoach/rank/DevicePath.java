package io.stagecoach.rank;

import io.stagecoach.device.DeviceRuntime;
import io.stagecoach.pipeline.PackedHostBuffer;
import io.stagecoach.pipeline.stage.InlineStaging;
import io.stagecoach.pipeline.trace.StageTracer;
import io.stagecoach.pipeline.transfer.ChunkPlan;
import io.stagecoach.pipeline.transfer.TransferPipeline;
import io.stagecoach.pipeline.transfer.TransferSpec;
import io.stagecoach.protocol.ErrorClass;

/**
 * The device side of the engine's messages: one up to the eager threshold is staged on the engine's thread
 * ({@link InlineStaging}: a hand-off to another thread and back would cost more than the device work); a larger one
 * runs through the stage pipeline in chunks ({@link TransferPipeline}), whose answers come back as engine commands.
 */
final class DevicePath implements AutoCloseable
{
    private final InlineStaging inline;
    private final long chunkBytes;
    private final int slots;
    private final StageTracer tracer;
    private volatile TransferPipeline pipeline;

    /**
     * @param runtime    the device layer, or null when the rank has none (a device buffer is then an error).
     * @param chunkBytes bytes of a chunk of a large transfer.
     * @param slots      chunks of one transfer that may be in host memory at once.
     * @param tracer     told when each chunk crosses the wire ({@link StageTracer#OFF} for none).
     */
    DevicePath(final DeviceRuntime runtime, final long chunkBytes, final int slots, final StageTracer tracer)
    {
        this.inline = runtime == null ? null : new InlineStaging(runtime);
        this.chunkBytes = chunkBytes;
        this.slots = slots;
        this.tracer = tracer;
    }

    /**
     * @param pipeline the stage pipeline, once the rank's actor system runs.
     */
    void pipeline(final TransferPipeline pipeline)
    {
        this.pipeline = pipeline;
    }

    PackedHostBuffer allocate(final long packedBytes)
    {
        return inline().allocate(packedBytes);
    }

    PackedHostBuffer packNow(final SendOperation send)
    {
        return inline().packToHostNow(send.buffer.baseAddress(), send.buffer.device(), send.count, send.compiled,
            send.packedBytes);
    }

    void unpackNow(final ReceiveOperation receive)
    {
        inline().unpackToDeviceNow(receive.staging, receive.receivedBytes, receive.buffer.baseAddress(),
            receive.buffer.device(), receive.count, receive.compiled);
    }

    /**
     * Starts packing a large device send in chunks.
     *
     * @return the engine's side of the transfer.
     */
    ChunkedSend startSend(final CommandSink engine, final SendOperation send)
    {
        final ChunkedSend transfer = new ChunkedSend(engine, send, plan(send.packedBytes), slots, tracer);
        transfer.handle = pipeline().startSend(new TransferSpec(send.transferId, send.destination,
            send.buffer.baseAddress(), send.buffer.device(), send.count, send.compiled, transfer.plan, transfer.slots,
            transfer));
        return transfer;
    }

    /**
     * Starts receiving a large message into a device buffer in chunks that arrive as bytes.
     *
     * @return the engine's side of the transfer.
     */
    ChunkedReceive startReceive(final CommandSink engine, final ReceiveOperation receive)
    {
        final ChunkedReceive transfer = new ChunkedReceive(engine, receive, plan(receive.packedBytes), slots, tracer);
        transfer.handle = pipeline().startReceive(new TransferSpec(receive.transferId, receive.matchedSource,
            receive.buffer.baseAddress(), receive.buffer.device(), receive.count, receive.compiled, transfer.plan,
            transfer.slots, transfer), true);
        return transfer;
    }

    /**
     * @return large transfers started through the stage pipeline so far, in either direction.
     */
    long transfersStarted()
    {
        final TransferPipeline current = pipeline;
        return current == null ? 0 : current.transfersStarted();
    }

    public void close()
    {
        final TransferPipeline current = pipeline;
        if (current != null)
        {
            current.close();
        }
        if (inline != null)
        {
            inline.close();
        }
    }

    private ChunkPlan plan(final long packedBytes)
    {
        return ChunkPlan.of(packedBytes, chunkBytes);
    }

    private InlineStaging inline()
    {
        if (inline == null)
        {
            throw new StagecoachException(ErrorClass.BUFFER, "no device runtime is configured to stage device memory " +
                "(StagecoachContext.deviceRuntime)");
        }
        return inline;
    }

    private TransferPipeline pipeline()
    {
        final TransferPipeline current = pipeline;
        if (current == null)
        {
            throw new StagecoachException(ErrorClass.BUFFER, "no stage pipeline runs to move large device messages " +
                "(no device runtime is configured: StagecoachContext.deviceRuntime)");
        }
        return current;
    }
}
