package io.stagecoach.rank.engine;

import java.util.Arrays;

import io.stagecoach.pipeline.trace.Stage;
import io.stagecoach.pipeline.trace.StageTracer;
import io.stagecoach.pipeline.transfer.ChunkPlan;
import io.stagecoach.pipeline.transfer.TransferHandle;
import io.stagecoach.pipeline.transfer.TransferPipeline;
import io.stagecoach.pipeline.transfer.TransferPort;
import io.stagecoach.rank.memory.RawMemory;

/**
 * The engine's side of a device receive whose chunks the stage pipeline unpacks: the host memory the pipeline
 * offers for each chunk, as a ring over the transfer's slots, the receiver's window (the sender may send up to the
 * end of the last chunk offered), the bytes arrived per chunk, and the chunks unpacked. The pipeline's answers
 * arrive on its actor's thread and are handed to the engine's command queue in commands made once per slot and
 * reused: nothing is allocated per chunk.
 */
final class ChunkedReceive implements TransferPort
{
    final ReceiveOperation receive;
    final ChunkPlan plan;
    final int slots;
    private final CommandSink engine;
    private final StageTracer tracer;
    private final long[] wireStartNs;
    private final long[] slotAddress;
    private final int[] arrivedBytes;
    /** The chunk whose bytes each slot of the ring takes now; -1 while none, and once its last byte arrived. */
    private final int[] slotChunk;
    private final Offered[] offered;
    private final Unpacked[] unpacked;
    /**
     * Chunks that may wait for their unpack at once when they are taken out of the sender's arena: a sender announces
     * no more ahead of those done, whatever its slots.
     */

    /** Where the sender's shared arena starts in this process, when its chunks are taken out of it; 0 otherwise. */
    final long arenaBase;
    /** The sender's slot region, as offsets in its arena: a CHUNK must name bytes inside it. */
    long regionOffset;
    long regionLength;
    TransferHandle handle;
    int chunksOffered;
    int chunksUnpacked;
    boolean finished;
    private boolean stopped;

    ChunkedReceive(
        final CommandSink engine, final ReceiveOperation receive, final ChunkPlan plan, final int slots,
        final StageTracer tracer, final long arenaBase)
    {
        this.engine = engine;
        this.tracer = tracer;
        this.arenaBase = arenaBase;
        this.finished = arenaBase != 0;
        this.receive = receive;
        this.plan = plan;
        this.slots = Math.max(1, Math.min(slots, plan.chunks()));
        this.slotAddress = new long[this.slots];
        this.wireStartNs = new long[this.slots];
        this.arrivedBytes = new int[this.slots];
        this.slotChunk = new int[this.slots];
        Arrays.fill(slotChunk, -1);
        this.offered = new Offered[this.slots];
        this.unpacked = new Unpacked[arenaBase != 0 ? TransferPipeline.ARENA_RING : this.slots];
        for (int i = 0; i < this.slots; i++)
        {
            offered[i] = new Offered(this);
        }
        for (int i = 0; i < unpacked.length; i++)
        {
            unpacked[i] = new Unpacked(this);
        }
    }

    /**
     * @return packed bytes the sender may send so far: up to the end of the last chunk offered; all of them when the
     * chunks are taken out of the sender's arena.
     */
    long windowBytes()
    {
        if (arenaBase != 0)
        {
            return plan.packedBytes();
        }
        return chunksOffered == 0 ? 0 : plan.offset(chunksOffered - 1) + plan.length(chunksOffered - 1);
    }

    /**
     * A chunk lies in the sender's arena, at an offset its CHUNK names: it goes to the pipeline to be unpacked in
     * place.
     *
     * @return false when the CHUNK names a chunk outside the transfer or bytes outside the sender's slot region.
     */
    boolean arrivedInArena(final int chunk, final long arenaOffset)
    {
        if (chunk < 0 || chunk >= plan.chunks() || arenaOffset < regionOffset ||
            arenaOffset + plan.length(chunk) > regionOffset + regionLength)
        {
            return false;
        }
        handle.chunkArrived(chunk, arenaBase + arenaOffset);
        return true;
    }

    /**
     * @return true once every chunk reached the device buffer.
     */
    boolean isUnpacked()
    {
        return chunksUnpacked == plan.chunks();
    }

    /**
     * Writes arrived packed bytes into the host memory of their chunks; a chunk whose last byte arrived goes to the
     * pipeline to be unpacked.
     *
     * @return false when the bytes lie outside the window: past the last chunk offered, or in a chunk that holds no
     * slot (its slot went to a later chunk) or whose bytes all arrived already.
     */
    boolean write(final long srcAddress, final long packedOffset, final int lengthBytes)
    {
        if (packedOffset < 0 || packedOffset + lengthBytes > windowBytes() || !takes(packedOffset, lengthBytes))
        {
            return false;
        }
        long offset = packedOffset;
        int done = 0;
        while (done < lengthBytes)
        {
            final int chunk = plan.chunkOf(offset);
            final int index = chunk % slots;
            final long inChunk = offset - plan.offset(chunk);
            final int piece = (int)Math.min(lengthBytes - done, plan.length(chunk) - inChunk);
            if (arrivedBytes[index] == 0 && tracer.isEnabled())
            {
                wireStartNs[index] = System.nanoTime();
            }
            RawMemory.copy(srcAddress + done, slotAddress[index] + inChunk, piece);
            arrivedBytes[index] += piece;
            if (arrivedBytes[index] == plan.length(chunk))
            {
                arrivedBytes[index] = 0;
                slotChunk[index] = -1;
                if (tracer.isEnabled())
                {
                    tracer.record(receive.transferId, chunk, Stage.WIRE, wireStartNs[index], System.nanoTime(),
                        plan.length(chunk), receive.buffer.device());
                }
                handle.chunkArrived(chunk, slotAddress[index]);
            }
            done += piece;
            offset += piece;
        }
        return true;
    }

    private boolean takes(final long packedOffset, final int lengthBytes)
    {
        final int last = plan.chunkOf(packedOffset + lengthBytes - 1);
        for (int chunk = plan.chunkOf(packedOffset); chunk <= last; chunk++)
        {
            if (slotChunk[chunk % slots] != chunk)
            {
                return false;
            }
        }
        return true;
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
        throw new UnsupportedOperationException("a receive packs nothing: " + receive);
    }

    public void chunkSlot(final int chunk, final long hostAddress)
    {
        final Offered command = offered[chunk % slots];
        command.chunk = chunk;
        command.address = hostAddress;
        engine.enqueue(command);
    }

    public void chunkUnpacked(final int chunk)
    {
        final Unpacked command = unpacked[chunk % unpacked.length];
        command.chunk = chunk;
        engine.enqueue(command);
    }

    public void transferFailed(final Throwable failure)
    {
        engine.enqueue(locked -> locked.chunkedReceiveFailed(receive, failure));
    }

    /**
     * Host memory for the next chunk: the window grows to its end.
     */
    private static final class Offered implements EngineCommand
    {
        private final ChunkedReceive transfer;
        int chunk;
        long address;

        Offered(final ChunkedReceive transfer)
        {
            this.transfer = transfer;
        }

        public void execute(final ProgressEngine engine)
        {
            transfer.slotAddress[chunk % transfer.slots] = address;
            transfer.slotChunk[chunk % transfer.slots] = chunk;
            transfer.chunksOffered = chunk + 1;
            engine.windowGrew(transfer.receive);
        }
    }

    /**
     * A chunk is in the device buffer.
     */
    private static final class Unpacked implements EngineCommand
    {
        private final ChunkedReceive transfer;
        int chunk;

        Unpacked(final ChunkedReceive transfer)
        {
            this.transfer = transfer;
        }

        public void execute(final ProgressEngine engine)
        {
            transfer.chunksUnpacked++;
            engine.chunkUnpacked(transfer.receive, chunk);
        }
    }
}
