package io.stagecoach.pipeline.stage;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import io.stagecoach.device.Allocation;
import io.stagecoach.device.DeviceEvent;
import io.stagecoach.device.DeviceException;
import io.stagecoach.device.DeviceRuntime;
import io.stagecoach.device.DeviceStream;
import io.stagecoach.device.pool.BufferPool;
import io.stagecoach.device.pool.BufferSlot;
import io.stagecoach.pipeline.trace.StageTracer;
import io.stagecoach.pipeline.transfer.TransferHandle;
import io.stagecoach.pipeline.transfer.TransferPipeline;
import io.stagecoach.pipeline.transfer.TransferSpec;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Props;

/**
 * The stage pipeline of one rank: for every large device transfer it spawns a {@link SendTransfer} or
 * {@link ReceiveTransfer} actor in the rank's actor system, which runs the chunks through the device stages. It owns
 * what the transfers share: the pools of pinned host slots (one for sends, one for receives, so that neither
 * direction can starve the other), one stream per device and direction (the pack kernels of every send in order on
 * one, the unpack kernels on the other), and the events, handed out per transfer and taken back at its end. The
 * pools are opened by the first transfer that needs them: a rank that moves no large device message pins nothing.
 */
public final class StagePipeline implements TransferPipeline
{
    private final ActorSystem<?> system;
    private final DeviceRuntime runtime;
    private final StageTracer tracer;
    private final int slots;
    private final long slotBytes;
    private BufferPool sendSlots;
    private BufferPool receiveSlots;
    private BufferPool sharedSlots;
    private Allocation sharedMemory;
    private long sharedAddress;
    private long sharedLengthBytes;
    private final DeviceStream[] packStreams;
    private final DeviceStream[] unpackStreams;
    private final List<ArrayDeque<DeviceEvent>> events;
    private final AtomicLong transfersStarted = new AtomicLong();
    /** Slots of the send pool, and of the shared pool, that sends not matched yet hold. */
    private final AtomicInteger aheadSendSlots = new AtomicInteger();
    private final AtomicInteger aheadSharedSlots = new AtomicInteger();
    private boolean closed;

    /**
     * @param system    the rank's actor system, in which the transfers' actors run.
     * @param runtime   the device layer of this process.
     * @param slots     slots of each pool of pinned host memory (sends and receives have one each).
     * @param slotBytes bytes of a slot: the largest chunk.
     * @param tracer    told of the device stages of every chunk ({@link StageTracer#OFF} for none).
     */
    public StagePipeline(
        final ActorSystem<?> system,
        final DeviceRuntime runtime,
        final int slots,
        final long slotBytes,
        final StageTracer tracer)
    {
        this.system = system;
        this.runtime = runtime;
        this.tracer = tracer;
        this.slots = slots;
        this.slotBytes = slotBytes;
        this.packStreams = new DeviceStream[runtime.deviceCount()];
        this.unpackStreams = new DeviceStream[runtime.deviceCount()];
        this.events = new ArrayList<>(runtime.deviceCount());
        for (int i = 0; i < runtime.deviceCount(); i++)
        {
            events.add(new ArrayDeque<>());
        }
    }

    /**
     * {@inheritDoc}
     */
    public TransferHandle startSend(final TransferSpec spec)
    {
        checkChunk(spec);
        final SendTransfer transfer = new SendTransfer(this, spec);
        transfer.start(system.systemActorOf(transfer.behavior(), name("send", spec), Props.empty()));
        return transfer;
    }

    /**
     * {@inheritDoc}
     */
    public TransferHandle startReceive(final TransferSpec spec, final boolean withSlots)
    {
        checkChunk(spec);
        final ReceiveTransfer transfer = new ReceiveTransfer(this, spec, withSlots);
        transfer.start(system.systemActorOf(transfer.behavior(), name("receive", spec), Props.empty()));
        return transfer;
    }

    /**
     * {@inheritDoc}
     */
    public synchronized void sharedSlots(final long address, final long lengthBytes)
    {
        this.sharedAddress = address;
        this.sharedLengthBytes = lengthBytes;
    }

    /**
     * @return bytes of host memory the pool of shared slots needs: its slots, each rounded up to the pool's alignment.
     */
    public static long sharedSlotsBytes(final int slots, final long slotBytes)
    {
        return slots * ((slotBytes + BufferPool.SLOT_ALIGNMENT - 1) & -BufferPool.SLOT_ALIGNMENT);
    }

    /**
     * {@inheritDoc}
     */
    public long maxChunkBytes()
    {
        return slotBytes;
    }

    /**
     * {@inheritDoc}
     */
    public long transfersStarted()
    {
        return transfersStarted.get();
    }

    /**
     * @return slots of the send, receive and shared pools free now; every pool is full again once every transfer
     * ended.
     */
    public synchronized int freeSlots()
    {
        return free(sendSlots) + free(receiveSlots) + free(sharedSlots);
    }

    /**
     * Closes the pools, streams and events, once the device work queued on the streams is done: it writes and reads
     * the pools' slots. Transfers still running fail their device work.
     */
    public synchronized void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        for (final ArrayDeque<DeviceEvent> free : events)
        {
            DeviceEvent event;
            while ((event = free.pollFirst()) != null)
            {
                event.close();
            }
        }
        closeAll(packStreams);
        closeAll(unpackStreams);
        if (sendSlots != null)
        {
            sendSlots.close();
        }
        if (receiveSlots != null)
        {
            receiveSlots.close();
        }
        if (sharedSlots != null)
        {
            sharedSlots.close();
            sharedMemory.free();
        }
    }

    DeviceRuntime runtime()
    {
        return runtime;
    }

    StageTracer tracer()
    {
        return tracer;
    }

    CompletableFuture<BufferSlot> leaseSlot(final boolean send, final boolean shared)
    {
        return pool(send, shared).acquire();
    }

    BufferSlot tryLeaseSlot(final boolean send, final boolean shared)
    {
        return pool(send, shared).tryAcquire();
    }

    /**
     * A slot for a send not matched yet, packing ahead of its CTS: such sends together hold at most half the pool
     * (rounded down), so that a matched transfer always finds slots that no send waiting for its receiver keeps
     * (an MPI program may receive a later message before earlier ones that wait unexpected).
     *
     * @return the slot, or null when none is free or unmatched sends hold their share.
     */
    BufferSlot tryLeaseAhead(final boolean shared)
    {
        final BufferPool pool = pool(true, shared);
        final AtomicInteger ahead = shared ? aheadSharedSlots : aheadSendSlots;
        final int limit = pool.slotCount() / 2;
        int held;
        do
        {
            held = ahead.get();
            if (held >= limit)
            {
                return null;
            }
        }
        while (!ahead.compareAndSet(held, held + 1));
        final BufferSlot slot = pool.tryAcquire();
        if (slot == null)
        {
            ahead.decrementAndGet();
        }
        return slot;
    }

    /**
     * Slots leased ahead are no longer an unmatched send's: it was matched, or gave them back.
     */
    void aheadDone(final boolean shared, final int slots)
    {
        (shared ? aheadSharedSlots : aheadSendSlots).addAndGet(-slots);
    }

    private synchronized BufferPool pool(final boolean send, final boolean shared)
    {
        if (shared)
        {
            if (sharedSlots == null)
            {
                if (sharedLengthBytes < sharedSlotsBytes(slots, slotBytes))
                {
                    throw new IllegalStateException("the stage pipeline was given " + sharedLengthBytes + " bytes of " +
                        "shared memory, its shared slots need " + sharedSlotsBytes(slots, slotBytes));
                }
                sharedMemory = runtime.register(sharedAddress, sharedLengthBytes);
                sharedSlots = BufferPool.carve("shared slot pool", sharedMemory, slots, slotBytes);
            }
            return sharedSlots;
        }
        if (send)
        {
            if (sendSlots == null)
            {
                sendSlots = BufferPool.openVbufs(runtime, slots, slotBytes);
            }
            return sendSlots;
        }
        if (receiveSlots == null)
        {
            receiveSlots = BufferPool.openVbufs(runtime, slots, slotBytes);
        }
        return receiveSlots;
    }

    synchronized DeviceStream packStream(final int device)
    {
        return stream(packStreams, device);
    }

    synchronized DeviceStream unpackStream(final int device)
    {
        return stream(unpackStreams, device);
    }

    synchronized DeviceEvent takeEvent(final int device)
    {
        final DeviceEvent event = events.get(device).pollFirst();
        return event != null ? event : runtime.createEvent(device);
    }

    synchronized void giveBack(final DeviceEvent event)
    {
        if (closed)
        {
            event.close();
        }
        else
        {
            events.get(event.device()).addFirst(event);
        }
    }

    private DeviceStream stream(final DeviceStream[] streams, final int device)
    {
        DeviceStream stream = streams[device];
        if (stream == null)
        {
            stream = runtime.createStream(device);
            streams[device] = stream;
        }
        return stream;
    }

    private void checkChunk(final TransferSpec spec)
    {
        if (spec.plan().chunkBytes() > slotBytes)
        {
            throw new IllegalArgumentException("chunks of " + spec.plan().chunkBytes() + " bytes do not fit the " +
                slotBytes + "-byte slots of the stage pipeline (transfer " + spec.transferId() + ")");
        }
    }

    private String name(final String direction, final TransferSpec spec)
    {
        return direction + "-" + spec.transferId() + "-" + transfersStarted.incrementAndGet();
    }

    private int free(final BufferPool pool)
    {
        return pool == null ? slots : pool.available();
    }

    private static void closeAll(final DeviceStream[] streams)
    {
        for (int i = 0; i < streams.length; i++)
        {
            if (streams[i] != null)
            {
                try
                {
                    streams[i].synchronize();
                }
                catch (final DeviceException ex)
                {
                    // the failed work was reported to its transfer; the stream is closed all the same
                }
                streams[i].close();
                streams[i] = null;
            }
        }
    }
}
