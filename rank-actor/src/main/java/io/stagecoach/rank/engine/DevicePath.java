package io.stagecoach.rank.engine;

import java.util.BitSet;

import io.stagecoach.device.Allocation;
import io.stagecoach.device.DeviceRuntime;
import io.stagecoach.device.IpcExportListener;
import io.stagecoach.device.IpcHandle;
import io.stagecoach.pipeline.PackedHostBuffer;
import io.stagecoach.pipeline.stage.InlineStaging;
import io.stagecoach.pipeline.stage.StagePipeline;
import io.stagecoach.pipeline.trace.StageTracer;
import io.stagecoach.pipeline.trace.TracedPath;
import io.stagecoach.pipeline.transport.cudaipc.IpcGets;
import io.stagecoach.pipeline.transfer.ChunkPlan;
import io.stagecoach.pipeline.transfer.TransferPipeline;
import io.stagecoach.pipeline.transfer.TransferSpec;
import io.stagecoach.pipeline.tune.ChunkModel;
import io.stagecoach.pipeline.tune.DeviceCosts;
import io.stagecoach.pipeline.tune.PathModel;
import io.stagecoach.pipeline.tune.StageCostCache;
import io.stagecoach.pipeline.tune.TransferPath;
import io.stagecoach.protocol.ErrorClass;
import io.stagecoach.protocol.wire.EnvelopeFlyweight;
import io.stagecoach.rank.StagecoachException;
import io.stagecoach.rank.memory.SharedArena;
import org.agrona.collections.Long2ObjectHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The device side of the engine's messages: one up to the eager threshold is staged on the engine's thread
 * ({@link InlineStaging}: a hand-off to another thread and back would cost more than the device work); a larger one
 * runs through the stage pipeline in chunks ({@link TransferPipeline}), whose answers come back as engine commands.
 * A send to a same-node peer packs its chunks into slots of this rank's shared arena, which the receiver maps and
 * registers with its device ({@link #peerSlots}) to unpack them in place: no CPU copies a byte of them. Unless the
 * path is forced to the stage pipeline, a device send to a same-node peer that the path model (or the IPC threshold
 * a setting fixes) sends one-sided ({@link #takesOneSided}) offers its buffer over IPC instead ({@link #exportIpc}):
 * the receiver gets the message out of it on its own device ({@link #gets}), one copy or kernel, and the pipeline
 * runs only when it cannot. The model's costs are the device's, measured on the first device message that needs them
 * and cached for the node's later runs.
 */
public final class DevicePath implements AutoCloseable
{
    private static final Logger LOG = LoggerFactory.getLogger(DevicePath.class);

    private final DeviceRuntime runtime;
    private final InlineStaging inline;
    private final long slotBytes;
    private final long chunkBytes;
    private final int slots;
    private final int poolSlots;
    private final boolean arenaWire;
    private final boolean oneSided;
    private IpcGets gets;
    private final Allocation[] peerSlots;
    private final long[] exporters;
    private final Long2ObjectHashMap<Offer> offers = new Long2ObjectHashMap<>();
    private IpcExportListener exportListener;
    private long sharedRegion;
    private volatile DeviceCosts costs;
    private PathModel paths;
    private boolean unmeasurable;
    private ChunkModel arenaModel;
    private ChunkModel streamModel;
    private final StageTracer tracer;
    private volatile TransferPipeline pipeline;

    /**
     * @param runtime    the device layer, or null when the rank has none (a device buffer is then an error).
     * @param slotBytes  bytes of a slot of the pipeline: the largest chunk.
     * @param chunkBytes bytes of a chunk of every large transfer; 0 lets the model of the stage costs choose.
     * @param slots      chunks of one transfer that may be in host memory at once.
     * @param poolSlots  slots of each of the pipeline's pools, the shared one included.
     * @param size       ranks of the job.
     * @param arenaWire  whether chunks to same-node peers go through slots of the shared arena.
     * @param oneSided   whether large device messages to same-node peers are offered over IPC first.
     * @param tracer     told when each chunk crosses the wire ({@link StageTracer#OFF} for none).
     */
    public DevicePath(
        final DeviceRuntime runtime,
        final long slotBytes,
        final long chunkBytes,
        final int slots,
        final int poolSlots,
        final int size,
        final boolean arenaWire,
        final boolean oneSided,
        final StageTracer tracer)
    {
        this.arenaWire = arenaWire;
        this.oneSided = oneSided && runtime != null;
        this.runtime = runtime;
        this.inline = runtime == null ? null : new InlineStaging(runtime);
        this.slotBytes = slotBytes;
        this.chunkBytes = chunkBytes;
        this.slots = slots;
        this.poolSlots = poolSlots;
        this.peerSlots = new Allocation[size];
        this.exporters = new long[size];
        this.tracer = tracer;
    }

    /**
     * @param pipeline the stage pipeline, once the rank's actor system runs.
     */
    public void pipeline(final TransferPipeline pipeline)
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
     * Sets the slots of same-node sends aside in this rank's shared arena, when the rank has a device.
     */
    void reserveSharedSlots(final SharedArena arena)
    {
        final TransferPipeline current = pipeline;
        final long lengthBytes = StagePipeline.sharedSlotsBytes(poolSlots, slotBytes);
        final long address = current == null || !arenaWire ? 0 : arena.reserve(lengthBytes);
        if (address != 0)
        {
            current.sharedSlots(address, lengthBytes);
            sharedRegion = EnvelopeFlyweight.slotRegion(arena.offsetOf(address), lengthBytes);
        }
    }

    /**
     * @return the slot region of this rank's shared arena, as an arena RTS names it; 0 when there is none.
     */
    long sharedRegion()
    {
        return sharedRegion;
    }

    /**
     * @return where the pipeline and the engine record stages and transfers.
     */
    StageTracer tracer()
    {
        return tracer;
    }

    /**
     * Starts packing a large device send in chunks.
     *
     * @param shared whether the chunks go into slots of the shared arena, for a same-node receiver to take in place.
     * @return the engine's side of the transfer.
     */
    ChunkedSend startSend(final CommandSink engine, final SendOperation send, final boolean shared)
    {
        final boolean inArena = shared && sharedRegion != 0;
        final ChunkedSend transfer =
            new ChunkedSend(engine, send, plan(send.packedBytes, inArena), slots, tracer, inArena ? sharedRegion : 0);
        TransferTrace.begun(tracer, send, TracedPath.STAGED, transfer.plan.chunks());
        transfer.handle = pipeline().startSend(new TransferSpec(send.transferId, send.destination,
            send.buffer.baseAddress(), send.buffer.device(), send.count, send.compiled, transfer.plan, transfer.slots,
            inArena, transfer));
        return transfer;
    }

    /**
     * Whether a device send goes one-sided, got by its receiver over IPC: only to a same-node peer, with a byte, when
     * the path is not forced to the stage pipeline; then above the IPC threshold where a setting fixes one, else
     * where the path model predicts it the fastest of the paths the message may take. Where the device's costs cannot
     * be measured (its memory full, say), every such send goes one-sided, as with a threshold of 0.
     *
     * @param packedBytes of the send.
     * @param sameNode    whether the receiver is on this node.
     * @param settings    the engine's: the eager and IPC thresholds.
     * @return true to offer the send over IPC.
     */
    boolean takesOneSided(final long packedBytes, final boolean sameNode, final EngineSettings settings)
    {
        if (!oneSided || !sameNode || packedBytes <= 0)
        {
            return false;
        }
        final int thresholdBytes = settings.deviceIpcThresholdBytes();
        if (thresholdBytes != EngineSettings.MODEL_CHOOSES)
        {
            return packedBytes > thresholdBytes;
        }
        if (unmeasurable)
        {
            return true;
        }
        try
        {
            final DeviceCosts current = costs();
            if (paths == null || paths.costs() != current)
            {
                paths = new PathModel(current, slotBytes, chunkBytes, settings.eagerThresholdBytes());
            }
        }
        catch (final RuntimeException ex)
        {
            unmeasurable = true;
            LOG.warn("the costs of device {} could not be measured, so every device message with a byte to a " +
                "same-node rank goes one-sided: {}", runtime.defaultDevice(), ex.toString());
            return true;
        }
        return paths.path(packedBytes, true) == TransferPath.ONE_SIDED;
    }

    /**
     * Sets the costs that choose paths and chunk sizes, instead of those measured (or cached) on the first device
     * message that needs them: costs known already, or a test's.
     *
     * @param known the device's costs.
     */
    public void costs(final DeviceCosts known)
    {
        this.costs = known;
    }

    /**
     * The IPC handle of a large device send's buffer, for a same-node receiver to get the message out of it.
     *
     * @return the handle; null when the path is forced to the stage pipeline or the buffer cannot be exported (not
     * device memory allocated by this process's runtime).
     */
    IpcHandle exportIpc(final SendOperation send)
    {
        if (!oneSided || send.buffer.lengthBytes() <= 0)
        {
            return null;
        }
        try
        {
            return runtime.exportIpc(send.buffer.lowAddress(), send.buffer.lengthBytes());
        }
        catch (final RuntimeException ex)
        {
            LOG.debug("{} goes through the stage pipeline: {}", send, ex.getMessage());
            return null;
        }
    }

    /** The peers an exported allocation was offered to. */
    private record Offer(long exportNumber, BitSet ranks)
    {
    }

    /**
     * Tells the engine, through its command queue, of each allocation this rank offered over IPC that the program
     * frees, so that the peers it was offered to drop their mappings of it ({@link #takeOffers}).
     *
     * @param engine the engine of this rank.
     */
    void watchFrees(final CommandSink engine)
    {
        if (oneSided)
        {
            exportListener = (address, number) -> engine.enqueue(locked -> locked.exportFreed(address, number));
            runtime.addExportListener(exportListener);
        }
    }

    /**
     * A send's buffer was offered to a peer over IPC: the peer is told when the allocation is freed.
     *
     * @param rank   the peer.
     * @param handle the buffer's handle.
     */
    void offered(final int rank, final IpcHandle handle)
    {
        Offer offer = offers.get(handle.allocationAddress());
        if (offer == null || offer.exportNumber() != handle.exportNumber())
        {
            offer = new Offer(handle.exportNumber(), new BitSet());
            offers.put(handle.allocationAddress(), offer);
        }
        offer.ranks().set(rank);
    }

    /**
     * @return the peers an allocation's export was offered to, forgotten here; empty where it was offered to none.
     */
    BitSet takeOffers(final long allocationAddress, final long exportNumber)
    {
        final Offer offer = offers.get(allocationAddress);
        if (offer == null || offer.exportNumber() != exportNumber)
        {
            return new BitSet();
        }
        offers.remove(allocationAddress);
        return offer.ranks();
    }

    /**
     * A same-node peer freed an allocation it offered this rank over IPC: the mapping of that export closes (at once
     * where no get reads it, when the last one ends otherwise), and one of a later allocation at its address stays.
     *
     * @param rank              the peer.
     * @param allocationAddress of the freed allocation in the peer's process.
     * @param exportNumber      of its export.
     */
    void released(final int rank, final long allocationAddress, final long exportNumber)
    {
        if (runtime != null && exporters[rank] != 0)
        {
            final boolean closed = runtime.invalidateIpc(exporters[rank], allocationAddress, exportNumber);
            LOG.debug("rank {} freed 0x{} (export {}): {}", rank, Long.toHexString(allocationAddress), exportNumber,
                closed ? "its mapping closes" : "no mapping of it was open");
        }
    }

    /**
     * @return the gets of messages out of same-node senders' buffers, made on first use; null without a device or
     * where the path is forced to the stage pipeline.
     */
    IpcGets gets()
    {
        if (gets == null && oneSided)
        {
            gets = new IpcGets(runtime, tracer);
        }
        return gets;
    }

    /**
     * @param rank      a same-node peer whose device buffer a get opens.
     * @param processId its process, as the buffer's handle names it.
     */
    void exporter(final int rank, final long processId)
    {
        exporters[rank] = processId;
    }

    /**
     * A peer is gone: nothing more comes from its device memory, and every mapping of it closes (once the gets
     * still reading it end), rather than stay open in the device layer's cache until this rank closes.
     *
     * @param rank the peer.
     */
    void peerGone(final int rank)
    {
        if (runtime != null && exporters[rank] != 0)
        {
            final int closed = runtime.invalidateIpcOf(exporters[rank]);
            exporters[rank] = 0;
            LOG.debug("rank {} is gone: {} mapping(s) of its device memory closed", rank, closed);
        }
    }

    /**
     * Hands the gets the device finished to the handler.
     *
     * @return gets that ended, or 1 while some are in flight; 0 when none ever started.
     */
    int pollGets(final IpcGets.Handler handler)
    {
        return gets == null ? 0 : gets.poll(handler);
    }

    /**
     * @return ranges of host memory registered with the device for one-sided gets now, for tests and diagnostics.
     */
    public int registeredRanges()
    {
        return gets == null ? 0 : gets.registeredRanges();
    }

    /**
     * @return gets of device messages out of same-node senders' buffers so far.
     */
    public long ipcGets()
    {
        return gets == null ? 0 : gets.started();
    }

    /**
     * Registers a same-node peer's slot region, mapped in this process, with the device, once per peer: the unpack
     * kernels then read chunks straight out of it.
     *
     * @param rank    the peer.
     * @param address of the region in this process.
     * @param length  of the region.
     * @return false when the device refuses the region.
     */
    boolean registerPeerSlots(final int rank, final long address, final long length)
    {
        final Allocation known = peerSlots[rank];
        if (known != null && known.address() == address && known.lengthBytes() == length)
        {
            return true;
        }
        if (known != null)
        {
            known.free();
            peerSlots[rank] = null;
        }
        try
        {
            peerSlots[rank] = runtime.register(address, length);
            return true;
        }
        catch (final RuntimeException ex)
        {
            return false;
        }
    }

    /**
     * Starts receiving a large message into a device buffer in chunks that arrive as bytes.
     *
     * @return the engine's side of the transfer.
     */
    ChunkedReceive startReceive(final CommandSink engine, final ReceiveOperation receive)
    {
        return startReceive(engine, receive, 0, plan(receive.packedBytes, false));
    }

    /**
     * Starts receiving a large message into a device buffer in chunks the sender's arena holds, taken out in place.
     *
     * @param arenaBase  where the sender's shared arena starts in this process.
     * @param chunkBytes the sender's chunk size, as its first CHUNK says.
     * @return the engine's side of the transfer.
     */
    ChunkedReceive startReceive(
        final CommandSink engine, final ReceiveOperation receive, final long arenaBase, final long chunkBytes)
    {
        return startReceive(engine, receive, arenaBase, ChunkPlan.of(receive.packedBytes, chunkBytes));
    }

    private ChunkedReceive startReceive(
        final CommandSink engine, final ReceiveOperation receive, final long arenaBase, final ChunkPlan plan)
    {
        final ChunkedReceive transfer = new ChunkedReceive(engine, receive, plan, slots, tracer, arenaBase);
        TransferTrace.begun(tracer, receive, TracedPath.STAGED, plan.chunks());
        transfer.handle = pipeline().startReceive(new TransferSpec(receive.transferId, receive.matchedSource,
            receive.buffer.baseAddress(), receive.buffer.device(), receive.count, receive.compiled, transfer.plan,
            transfer.slots, false, transfer), arenaBase == 0);
        return transfer;
    }

    /**
     * @return large transfers started through the stage pipeline so far, in either direction.
     */
    public long transfersStarted()
    {
        final TransferPipeline current = pipeline;
        return current == null ? 0 : current.transfersStarted();
    }

    /**
     * @return slots of the stage pipeline's pools free now, all of them once every transfer ended; 0 without a
     * pipeline.
     */
    public int freeSlots()
    {
        return pipeline instanceof StagePipeline stage ? stage.freeSlots() : 0;
    }

    public void close()
    {
        if (exportListener != null)
        {
            runtime.removeExportListener(exportListener);
            exportListener = null;
        }
        if (gets != null)
        {
            gets.close();
        }
        for (int i = 0; i < peerSlots.length; i++)
        {
            if (peerSlots[i] != null)
            {
                peerSlots[i].free();
                peerSlots[i] = null;
            }
        }
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

    /**
     * The chunks of a message: of the size the settings fix, or the model of the stage costs picks for its size and
     * wire.
     */
    private ChunkPlan plan(final long packedBytes, final boolean inArena)
    {
        if (chunkBytes > 0)
        {
            return ChunkPlan.of(packedBytes, chunkBytes);
        }
        final DeviceCosts current = costs();
        if (arenaModel == null || arenaModel.costs() != current.stages())
        {
            arenaModel = new ChunkModel(current.stages(), slotBytes);
            streamModel = new ChunkModel(current.streamStages(), slotBytes);
            LOG.info("chunks of 256 KiB, 1 MiB, 4 MiB, 64 MiB messages: arena {} {} {} {}, stream {} {} {} {}",
                arenaModel.chunkBytes(256 << 10), arenaModel.chunkBytes(1 << 20), arenaModel.chunkBytes(4 << 20),
                arenaModel.chunkBytes(64 << 20), streamModel.chunkBytes(256 << 10), streamModel.chunkBytes(1 << 20),
                streamModel.chunkBytes(4 << 20), streamModel.chunkBytes(64 << 20));
        }
        return ChunkPlan.of(packedBytes, (inArena ? arenaModel : streamModel).chunkBytes(packedBytes));
    }

    /**
     * @return the device's costs: those set, else those cached for the node, else measured now (and cached).
     */
    private DeviceCosts costs()
    {
        DeviceCosts current = costs;
        if (current == null)
        {
            current = StageCostCache.deviceCosts(runtime, runtime.defaultDevice(), slotBytes);
            costs = current;
            LOG.info("costs of device {}: {} (stagecoach tune prints the paths they choose)", runtime.defaultDevice(),
                current);
        }
        return current;
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
