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
import io.stagecoach.pipeline.transfer.TransferSpec;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * The device side of one large send: packs the chunks of a device buffer, in order, into slots of pinned host memory
 * (the pack kernel writes the mapped memory straight: PACK and D2H in one pass), as far ahead of the wire as its
 * slots allow, and hands each packed chunk to the engine; a slot the engine has sent takes the next chunk. Until its
 * receiver is matched (the first CTS) the send packs ahead only into slots free within the share of the pool that
 * unmatched sends may hold; once matched, its first slot is waited for (back-pressure when the pool is busy) and more
 * are taken only when free, so a transfer never waits while it holds a slot, and sends that wait for their receives
 * never keep a matched one from its slots. The device's completions arrive as messages; nothing waits on an actor thread, and per
 * chunk nothing is allocated here (the messages are made once per slot).
 */
final class SendTransfer implements TransferHandle
{
    /**
     * What the send's actor is told.
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
     * The chunk in a slot is packed into host memory.
     *
     * @param slot the slot.
     */
    record Packed(int slot) implements Command
    {
    }

    /**
     * The engine sent a chunk: its slot is free.
     *
     * @param index the chunk modulo the transfer's slots.
     */
    record Sent(int index) implements Command
    {
    }

    /**
     * The device failed the work of a slot.
     *
     * @param slot  the slot.
     * @param error the device's error.
     */
    record WorkFailed(int slot, Throwable error) implements Command
    {
    }

    /**
     * The receiver is matched.
     */
    enum Matched implements Command
    {
        INSTANCE
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
    private final int slots;
    private final DevicePacker packer;
    private final DeviceStream stream;
    private final StageTracer tracer;
    private final Stage stage;
    private final long[] issuedNs;
    private final BufferSlot[] leased;
    private final DeviceEvent[] events;
    private final int[] chunkInSlot;
    private final int[] slotOfChunk;
    private final Packed[] packed;
    private final Sent[] sent;
    private final CompletionHandler completion;
    private volatile ActorRef<Command> self;
    private ActorContext<Command> context;
    private int leasedCount;
    private int nextChunk;
    private int sentChunks;
    private int workInFlight;
    private boolean leasePending;
    private boolean cancelled;
    private boolean matched;
    /** Slots leased ahead while unmatched, counted in the pipeline's share for unmatched sends. */
    private int aheadSlots;

    SendTransfer(final StagePipeline pipeline, final TransferSpec spec)
    {
        this.pipeline = pipeline;
        this.spec = spec;
        this.plan = spec.plan();
        this.slots = spec.slotsUsed();
        this.packer = pipeline.runtime().packer(spec.type(), spec.device());
        this.stream = pipeline.packStream(spec.device());
        this.tracer = pipeline.tracer();
        this.stage = spec.type().isContiguous() ? Stage.D2H : Stage.PACK;
        this.issuedNs = new long[slots];
        this.leased = new BufferSlot[slots];
        this.events = new DeviceEvent[slots];
        this.chunkInSlot = new int[slots];
        this.slotOfChunk = new int[slots];
        this.packed = new Packed[slots];
        this.sent = new Sent[slots];
        for (int i = 0; i < slots; i++)
        {
            packed[i] = new Packed(i);
            sent[i] = new Sent(i);
        }
        this.completion = (event, token, error) ->
            self.tell(error == null ? packed[(int)token] : new WorkFailed((int)token, error));
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
            BufferSlot ahead;
            while (leasedCount < slots && (ahead = pipeline.tryLeaseAhead(spec.sharedSlots())) != null)
            {
                aheadSlots++;
                addSlot(ahead);
            }
            return Behaviors.receive(Command.class)
                .onMessageEquals(Matched.INSTANCE, this::onMatched)
                .onMessage(SlotLeased.class, this::onSlotLeased)
                .onMessage(Packed.class, this::onPacked)
                .onMessage(Sent.class, this::onSent)
                .onMessage(WorkFailed.class, this::onWorkFailed)
                .onMessageEquals(Cancel.INSTANCE, this::onCancel)
                .build();
        });
    }

    public void chunkSent(final int chunk)
    {
        self.tell(sent[chunk % slots]);
    }

    public void matched()
    {
        self.tell(Matched.INSTANCE);
    }

    public void chunkArrived(final int chunk, final long hostAddress)
    {
        throw new UnsupportedOperationException("transfer " + spec.transferId() + " is a send");
    }

    public void cancel()
    {
        self.tell(Cancel.INSTANCE);
    }

    private Behavior<Command> onMatched()
    {
        if (matched || cancelled)
        {
            return Behaviors.same();
        }
        matched = true;
        pipeline.aheadDone(spec.sharedSlots(), aheadSlots);
        aheadSlots = 0;
        if (leasedCount == 0)
        {
            leasePending = true;
            context.pipeToSelf(pipeline.leaseSlot(true, spec.sharedSlots()), SlotLeased::new);
        }
        else
        {
            leaseFree();
        }
        return Behaviors.same();
    }

    private void leaseFree()
    {
        BufferSlot more;
        while (leasedCount < slots && (more = pipeline.tryLeaseSlot(true, spec.sharedSlots())) != null)
        {
            addSlot(more);
        }
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
        leaseFree();
        return Behaviors.same();
    }

    private void addSlot(final BufferSlot slot)
    {
        final int index = leasedCount++;
        leased[index] = slot;
        events[index] = pipeline.takeEvent(spec.device());
        if (nextChunk < plan.chunks())
        {
            pack(index);
        }
    }

    private void pack(final int slot)
    {
        final int chunk = nextChunk++;
        chunkInSlot[slot] = chunk;
        slotOfChunk[chunk % slots] = slot;
        workInFlight++;
        issuedNs[slot] = tracer.isEnabled() ? System.nanoTime() : 0;
        try
        {
            synchronized (stream)
            {
                packer.pack(stream, spec.bufferAddress(), spec.count(), plan.offset(chunk), plan.length(chunk),
                    leased[slot].address(), events[slot]);
            }
            pipeline.runtime().onComplete(events[slot], completion, slot);
        }
        catch (final RuntimeException ex)
        {
            context.getSelf().tell(new WorkFailed(slot, ex));
        }
    }

    private Behavior<Command> onPacked(final Packed message)
    {
        workInFlight--;
        if (cancelled)
        {
            return finishIfIdle();
        }
        final int slot = message.slot();
        final int chunk = chunkInSlot[slot];
        if (tracer.isEnabled())
        {
            tracer.record(spec.transferId(), chunk, stage, issuedNs[slot], System.nanoTime(), plan.length(chunk),
                spec.device());
        }
        spec.port().chunkPacked(chunk, leased[slot].address());
        return Behaviors.same();
    }

    private Behavior<Command> onSent(final Sent message)
    {
        if (cancelled)
        {
            return Behaviors.same();
        }
        final int slot = slotOfChunk[message.index()];
        if (++sentChunks == plan.chunks())
        {
            return finish();
        }
        if (nextChunk < plan.chunks())
        {
            pack(slot);
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
        return fail(new StagingException("packing chunk " + chunkInSlot[message.slot()] + " of transfer " +
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
            pipeline.giveBack(events[i]);
        }
        leasedCount = 0;
        pipeline.aheadDone(spec.sharedSlots(), aheadSlots);
        aheadSlots = 0;
        return Behaviors.stopped();
    }
}
