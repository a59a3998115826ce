package io.stagecoach.rank.engine;

import io.stagecoach.pipeline.trace.Stage;
import io.stagecoach.pipeline.trace.StageTracer;
import io.stagecoach.pipeline.transfer.ChunkPlan;
import io.stagecoach.pipeline.transfer.TransferHandle;
import io.stagecoach.pipeline.transfer.TransferPort;

/**
 * The engine's side of a device send whose chunks the stage pipeline packs: where each packed chunk lies in host
 * memory and whether it is ready, as a ring over the transfer's slots (at most that many chunks are packed and not
 * yet sent). The pipeline's answers arrive on its actor's thread and are handed to the engine's command queue in
 * commands made once per slot and reused: nothing is allocated per chunk.
 */
final class ChunkedSend implements TransferPort
{
    final SendOperation send;
    final ChunkPlan plan;
    final int slots;
    private final CommandSink engine;
    private final StageTracer tracer;
    private final long[] wireStartNs;
    private final long[] chunkAddress;
    private final int[] readyChunk;
    private final Packed[] packed;
    /** Whether the chunks lie in slots of this rank's shared arena. */
    final boolean inArena;
    /** The slot region an arena RTS names, when {@link #inArena}. */
    final long sharedRegion;
    TransferHandle handle;
    int chunksSent;
    /** The receiver takes the chunks out of the arena's slots (its CTS said so): CHUNK messages instead of DATA. */
    boolean arenaWire;
    int chunksAnnounced;
    private boolean stopped;

    ChunkedSend(
        final CommandSink engine, final SendOperation send, final ChunkPlan plan, final int slots,
        final StageTracer tracer, final long sharedRegion)
    {
        this.engine = engine;
        this.tracer = tracer;
        this.inArena = sharedRegion != 0;
        this.sharedRegion = sharedRegion;
        this.send = send;
        this.plan = plan;
        this.slots = Math.max(1, Math.min(slots, plan.chunks()));
        this.chunkAddress = new long[this.slots];
        this.wireStartNs = new long[this.slots];
        this.readyChunk = new int[this.slots];
        this.packed = new Packed[this.slots];
        for (int i = 0; i < this.slots; i++)
        {
            readyChunk[i] = -1;
            packed[i] = new Packed(this);
        }
    }

    /**
     * @return true when the chunk is packed in host memory and not sent yet.
     */
    boolean isReady(final int chunk)
    {
        return readyChunk[chunk % slots] == chunk;
    }

    /**
     * @return where a ready chunk lies.
     */
    long address(final int chunk)
    {
        return chunkAddress[chunk % slots];
    }

    /**
     * The engine puts the first byte of a chunk on the wire.
     */
    void sending(final int chunk)
    {
        if (tracer.isEnabled())
        {
            wireStartNs[chunk % slots] = System.nanoTime();
        }
    }

    /**
     * The engine put the last byte of a chunk on the wire: the pipeline may reuse its host memory.
     */
    void sent(final int chunk)
    {
        if (tracer.isEnabled())
        {
            tracer.record(send.transferId, chunk, Stage.WIRE, wireStartNs[chunk % slots], System.nanoTime(),
                plan.length(chunk), send.buffer.device());
        }
        readyChunk[chunk % slots] = -1;
        chunksSent++;
        handle.chunkSent(chunk);
    }

    /**
     * The receiver answered the RTS: the pipeline may give the transfer slots beyond those unmatched sends may hold.
     */
    void matched()
    {
        if (handle != null && !stopped)
        {
            handle.matched();
        }
    }

    /**
     * The engine named a packed chunk to a receiver that takes it out of the arena (a CHUNK).
     */
    void announced(final int chunk)
    {
        sending(chunk);
        chunksAnnounced++;
    }

    /**
     * Stops the pipeline's side of the transfer, once.
     */
    void cancel()
    {
        if (handle != null && !stopped)
        {
            stopped = true;
            handle.cancel();
        }
    }

    /**
     * The pipeline stopped the transfer itself (it failed): nothing to cancel.
     */
    void stopped()
    {
        stopped = true;
    }

    public void chunkPacked(final int chunk, final long hostAddress)
    {
        final Packed command = packed[chunk % slots];
        command.chunk = chunk;
        command.address = hostAddress;
        engine.enqueue(command);
    }

    public void chunkSlot(final int chunk, final long hostAddress)
    {
        throw new UnsupportedOperationException("a send is offered no slots: " + send);
    }

    public void chunkUnpacked(final int chunk)
    {
        throw new UnsupportedOperationException("a send unpacks nothing: " + send);
    }

    public void transferFailed(final Throwable failure)
    {
        engine.enqueue(locked -> locked.chunkedSendFailed(send, failure));
    }

    /**
     * A chunk packed: ready for the wire from the next duty cycle on.
     */
    private static final class Packed implements EngineCommand
    {
        private final ChunkedSend transfer;
        int chunk;
        long address;

        Packed(final ChunkedSend transfer)
        {
            this.transfer = transfer;
        }

        public void execute(final ProgressEngine engine)
        {
            final int index = chunk % transfer.slots;
            transfer.chunkAddress[index] = address;
            transfer.readyChunk[index] = chunk;
        }
    }
}
