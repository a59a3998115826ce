package io.stagecoach.pipeline.stage;

import io.stagecoach.device.CompletionHandler;
import io.stagecoach.device.DeviceEvent;
import io.stagecoach.device.DevicePacker;
import io.stagecoach.device.DeviceStream;
import io.stagecoach.device.pool.BufferSlot;
import io.stagecoach.pipeline.trace.Stage;
import io.stagecoach.pipeline.trace.StageTracer;
import io.stagecoach.pipeline.transfer.ChunkPlan;
import io.stagecoach.pipeline.transfer.TransferHandle;
import io.stagecoach.pipeline.transfer.TransferPipeline;
import io.stagecoach.pipeline.transfer.TransferSpec;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * The device side of one large receive: unpacks each chunk, as it arrives in host memory, into the device buffer
 * (the unpack kernel reads the mapped memory straight: H2D and UNPACK in one pass). With slots, it offers the engine
 * pinned host memory for the chunks in order, as many ahead as its slots allow (the receiver's window), and a slot
 * whose chunk is unpacked takes the next; without, the chunks arrive in memory the sender shares. The device's
 * completions arrive as messages; nothing waits on an actor thread, and per chunk nothing is allocated here.
 */
final class ReceiveTransfer implements TransferHandle
{
    /** Chunks that may have arrived and wait for their unpack at once, when the sender's memory holds them. */

    /**
     * What the receive's actor is told.
     */
    sealed interface Command
    {
    }

    /**
     * The pool gave a slot, or could not.
     *
     * @param slot    the slot, null on failure.
     * @param failure why not, or null.
     */
    record SlotLeased(BufferSlot slot, Throwable failure) implements Command
    {
    }

    /**
     * A chunk arrived in host memory.
     *
     * @param index the chunk modulo the ring.
     */
    record Arrived(int index) implements Command
    {
    }

    /**
     * A chunk reached the device buffer.
     *
     * @param index the chunk modulo the ring.
     */
    record Unpacked(int index) implements Command
    {
    }

    /**
     * The device failed an unpack.
     *
     * @param index the chunk modulo the ring.
     * @param error the device's error.
     */
    record WorkFailed(int index, Throwable error) implements Command
    {
    }

    /**
     * The engine gave up the transfer.
     */
    enum Cancel implements Command
    {
        INSTANCE
    }

    private final StagePipeline pipeline;
    private final TransferSpec spec;
    private final ChunkPlan plan;
    private final boolean withSlots;
    private final int slots;
    private final int ring;
    private final DevicePacker packer;
    private final DeviceStream stream;
    private final StageTracer tracer;
    private final Stage stage;
    private final long[] issuedNs;
    private final BufferSlot[] leased;
    private final int[] slotOfChunk;
    private final boolean[] holding;
    private final int[] freeSlots;
    private final int[] arrivedChunk;
    private final long[] arrivedAddress;
    private final DeviceEvent[] events;
    private final Arrived[] arrived;
    private final Unpacked[] unpacked;
    private final CompletionHandler completion;
    private volatile ActorRef<Command> self;
    private ActorContext<Command> context;
    private int leasedCount;
    private int freeCount;
    private int nextOffer;
    private int unpackedChunks;
    private int workInFlight;
    private boolean leasePending;
    private boolean cancelled;

    ReceiveTransfer(final StagePipeline pipeline, final TransferSpec spec, final boolean withSlots)
    {
        this.pipeline = pipeline;
        this.spec = spec;
        this.plan = spec.plan();
        this.withSlots = withSlots;
        this.slots = spec.slotsUsed();
        this.ring = withSlots ? slots : TransferPipeline.ARENA_RING;
        this.packer = pipeline.runtime().packer(spec.type(), spec.device());
        this.stream = pipeline.unpackStream(spec.device());
        this.tracer = pipeline.tracer();
        this.stage = spec.type().isContiguous() ? Stage.H2D : Stage.UNPACK;
        this.leased = new BufferSlot[slots];
        this.slotOfChunk = new int[slots];
        this.holding = new boolean[slots];
        this.freeSlots = new int[slots];
        this.arrivedChunk = new int[ring];
        this.arrivedAddress = new long[ring];
        this.events = new DeviceEvent[ring];
        this.issuedNs = new long[ring];
        this.arrived = new Arrived[ring];
        this.unpacked = new Unpacked[ring];
        for (int i = 0; i < ring; i++)
        {
            arrived[i] = new Arrived(i);
            unpacked[i] = new Unpacked(i);
        }
        this.completion = (event, token, error) ->
            self.tell(error == null ? unpacked[(int)token] : new WorkFailed((int)token, error));
    }

    /**
     * @param ref the actor, for the engine's calls; the actor knows itself from its start, before any device work.
     */
    void start(final ActorRef<Command> ref)
    {
        self = ref;
    }

    Behavior<Command> behavior()
    {
        return Behaviors.setup(context ->
        {
            this.context = context;
            this.self = context.getSelf();
            if (withSlots)
            {
                leasePending = true;
                context.pipeToSelf(pipeline.leaseSlot(false, spec.sharedSlots()), SlotLeased::new);
            }
            return Behaviors.receive(Command.class)
                .onMessage(SlotLeased.class, this::onSlotLeased)
                .onMessage(Arrived.class, this::onArrived)
                .onMessage(Unpacked.class, this::onUnpacked)
                .onMessage(WorkFailed.class, this::onWorkFailed)
                .onMessageEquals(Cancel.INSTANCE, this::onCancel)
                .build();
        });
    }

    public void chunkSent(final int chunk)
    {
        throw new UnsupportedOperationException("transfer " + spec.transferId() + " is a receive");
    }

    /**
     * {@inheritDoc} At most {@link TransferPipeline#ARENA_RING} chunks (or the transfer's slots) may wait for their
     * unpack.
     */
    public void matched()
    {
        // a receive starts matched
    }

    public void chunkArrived(final int chunk, final long hostAddress)
    {
        final int index = chunk % ring;
        arrivedChunk[index] = chunk;
        arrivedAddress[index] = hostAddress;
        self.tell(arrived[index]);
    }

    public void cancel()
    {
        self.tell(Cancel.INSTANCE);
    }

    private Behavior<Command> onSlotLeased(final SlotLeased message)
    {
        leasePending = false;
        if (message.failure() != null)
        {
            return fail(new StagingException("transfer " + spec.transferId() + " got no host slot: " +
                message.failure().getMessage(), message.failure()));
        }
        if (cancelled)
        {
            message.slot().release();
            return finishIfIdle();
        }
        addSlot(message.slot());
        BufferSlot more;
        while (leasedCount < slots && (more = pipeline.tryLeaseSlot(false, spec.sharedSlots())) != null)
        {
            addSlot(more);
        }
        return Behaviors.same();
    }

    private void addSlot(final BufferSlot slot)
    {
        final int index = leasedCount++;
        leased[index] = slot;
        freeSlots[freeCount++] = index;
        offerFreeSlots();
    }

    /**
     * Offers free slots to the next chunks, in order; a chunk is offered only once the chunk a ring of the transfer's
     * slots before it is unpacked, since the engine keeps each chunk's slot at the chunk modulo the slots.
     */
    private void offerFreeSlots()
    {
        while (freeCount > 0 && nextOffer < plan.chunks() && !holding[nextOffer % slots])
        {
            final int slot = freeSlots[--freeCount];
            final int chunk = nextOffer++;
            slotOfChunk[chunk % slots] = slot;
            holding[chunk % slots] = true;
            spec.port().chunkSlot(chunk, leased[slot].address());
        }
    }

    private Behavior<Command> onArrived(final Arrived message)
    {
        if (cancelled)
        {
            return Behaviors.same();
        }
        final int index = message.index();
        final int chunk = arrivedChunk[index];
        if (events[index] == null)
        {
            events[index] = pipeline.takeEvent(spec.device());
        }
        workInFlight++;
        issuedNs[index] = tracer.isEnabled() ? System.nanoTime() : 0;
        try
        {
            synchronized (stream)
            {
                packer.unpack(stream, arrivedAddress[index], spec.count(), plan.offset(chunk), plan.length(chunk),
                    spec.bufferAddress(), events[index]);
            }
            pipeline.runtime().onComplete(events[index], completion, index);
        }
        catch (final RuntimeException ex)
        {
            context.getSelf().tell(new WorkFailed(index, ex));
        }
        return Behaviors.same();
    }

    private Behavior<Command> onUnpacked(final Unpacked message)
    {
        workInFlight--;
        if (cancelled)
        {
            return finishIfIdle();
        }
        final int chunk = arrivedChunk[message.index()];
        if (tracer.isEnabled())
        {
            tracer.record(spec.transferId(), chunk, stage, issuedNs[message.index()], System.nanoTime(),
                plan.length(chunk), spec.device());
        }
        spec.port().chunkUnpacked(chunk);
        if (++unpackedChunks == plan.chunks())
        {
            return finish();
        }
        if (withSlots)
        {
            holding[chunk % slots] = false;
            freeSlots[freeCount++] = slotOfChunk[chunk % slots];
            offerFreeSlots();
        }
        return Behaviors.same();
    }

    private Behavior<Command> onWorkFailed(final WorkFailed message)
    {
        workInFlight--;
        if (cancelled)
        {
            return finishIfIdle();
        }
        return fail(new StagingException("unpacking chunk " + arrivedChunk[message.index()] + " of transfer " +
            spec.transferId() + " (" + spec.count() + " x " + spec.type() + " on device " + spec.device() +
            ") failed: " + message.error().getMessage(), message.error()));
    }

    private Behavior<Command> onCancel()
    {
        cancelled = true;
        return finishIfIdle();
    }

    private Behavior<Command> fail(final RuntimeException failure)
    {
        spec.port().transferFailed(failure);
        cancelled = true;
        return finishIfIdle();
    }

    private Behavior<Command> finishIfIdle()
    {
        return workInFlight == 0 && !leasePending ? finish() : Behaviors.same();
    }

    private Behavior<Command> finish()
    {
        for (int i = 0; i < leasedCount; i++)
        {
            leased[i].release();
        }
        leasedCount = 0;
        for (int i = 0; i < ring; i++)
        {
            if (events[i] != null)
            {
                pipeline.giveBack(events[i]);
                events[i] = null;
            }
        }
        return Behaviors.stopped();
    }
}
