package io.stagecoach.pipeline.stage;

import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.stagecoach.device.Allocation;
import io.stagecoach.device.DeviceEvent;
import io.stagecoach.device.DevicePacker;
import io.stagecoach.device.DeviceRuntime;
import io.stagecoach.device.DeviceStream;
import io.stagecoach.device.pool.BufferPool;
import io.stagecoach.device.pool.BufferSlot;
import io.stagecoach.pipeline.PackedHostBuffer;
import io.stagecoach.protocol.datatype.CompiledType;

/**
 * Stages small device messages (up to the eager threshold) on the calling thread, where a hand-off to another thread
 * and back would cost more than the device work: the device's pack kernel writes the packed stream straight into a
 * slot of mapped pinned memory (one copy for a contiguous type), and the unpack kernel reads it from there. One
 * stream per device keeps them in order; the work is fused with the recording of one reused event per device, and
 * the caller spins on its completion for at most the inline timeout; if the device has not finished by then the call
 * fails, and the host memory is released only once the device is done with it. Messages up to a slot take a slot of
 * a pool of pinned buffers opened once; larger ones, or any while the pool is empty, get pinned memory of their own.
 * Large messages take the stage pipeline instead ({@link StagePipeline}).
 */
public final class InlineStaging implements AutoCloseable
{
    /** Slots of the vbuf pool. */
    public static final int VBUF_SLOTS = 8;
    /** Bytes of one vbuf slot: more than the largest eager message. */
    public static final long VBUF_SLOT_BYTES = 256 * 1024;

    /** How long the {@code Now} variants wait for the device by default. */
    public static final long DEFAULT_INLINE_TIMEOUT_NS = TimeUnit.SECONDS.toNanos(1);
    private static final int RECENT_SLOTS = 4;

    private final DeviceRuntime runtime;
    private final DeviceStream[] streams;
    private final BufferPool vbufs;
    private final long inlineTimeoutNs;
    private final DeviceEvent[] inlineEvents;
    private final ArrayDeque<BufferSlot> recentSlots = new ArrayDeque<>();
    private boolean closed;

    /**
     * @param runtime the device layer of this process.
     */
    public InlineStaging(final DeviceRuntime runtime)
    {
        this(runtime, DEFAULT_INLINE_TIMEOUT_NS);
    }

    /**
     * @param runtime         the device layer of this process.
     * @param inlineTimeoutNs how long the {@code Now} variants wait for the device before they fail.
     */
    public InlineStaging(final DeviceRuntime runtime, final long inlineTimeoutNs)
    {
        if (inlineTimeoutNs <= 0)
        {
            throw new IllegalArgumentException("inline staging timeout " + inlineTimeoutNs + " ns must be positive");
        }
        this.inlineTimeoutNs = inlineTimeoutNs;
        this.runtime = runtime;
        this.streams = new DeviceStream[runtime.deviceCount()];
        this.inlineEvents = new DeviceEvent[runtime.deviceCount()];
        this.vbufs = BufferPool.openVbufs(runtime, VBUF_SLOTS, VBUF_SLOT_BYTES);
    }

    /**
     * Host memory to receive the packed bytes of a small message bound for device memory.
     *
     * @param packedBytes size of the message's packed stream.
     * @return the memory, released by {@link #unpackToDeviceNow} or by the caller when the receive fails.
     */
    public PackedHostBuffer allocate(final long packedBytes)
    {
        if (packedBytes <= vbufs.slotBytes())
        {
            BufferSlot slot = takeRecentSlot();
            if (slot == null)
            {
                slot = vbufs.tryAcquire();
            }
            if (slot != null)
            {
                final BufferSlot taken = slot;
                return new PackedHostBuffer(taken.address(), packedBytes, () -> keepRecentSlot(taken));
            }
        }
        final Allocation pinned = runtime.allocatePinned(Math.max(1, packedBytes));
        return new PackedHostBuffer(pinned.address(), packedBytes, pinned::free);
    }

    /**
     * Packs {@code count} instances of a datatype in device memory into new host memory on the calling thread,
     * polling the device until the packed bytes are in host memory.
     *
     * @param deviceAddress displacement 0 of the typed buffer.
     * @param device        ordinal of the device that holds it.
     * @param count         instances.
     * @param type          compiled form of the datatype.
     * @param packedBytes   {@code count * type.size()}.
     * @return the packed bytes, which the caller releases once sent.
     * @throws StagingException when the device fails or does not finish within the inline timeout.
     */
    public PackedHostBuffer packToHostNow(
        final long deviceAddress, final int device, final long count, final CompiledType type, final long packedBytes)
    {
        final PackedHostBuffer packed = allocate(packedBytes);
        final DeviceEvent event;
        try
        {
            final DevicePacker packer = runtime.packer(type, device);
            final DeviceStream stream = stream(device);
            event = takeInlineEvent(device);
            try
            {
                synchronized (stream)
                {
                    packer.pack(stream, deviceAddress, count, 0, packedBytes, packed.address(), event);
                }
            }
            catch (final RuntimeException ex)
            {
                event.close();
                throw ex;
            }
        }
        catch (final RuntimeException ex)
        {
            packed.release();
            throw new StagingException("packing " + count + " x " + type + " (" + packedBytes + " bytes) from device " +
                device + " to host failed: " + ex.getMessage(), ex);
        }
        awaitInline(event, packed, "packing " + count + " x " + type + " (" + packedBytes + " bytes) from device " +
            device + " to host");
        return packed;
    }

    /**
     * Unpacks the first {@code lengthBytes} of a packed stream in host memory into device memory on the calling
     * thread, polling the device until the data is in device memory, then releases the host memory (whether or not
     * the unpack succeeded).
     *
     * @param packed        the packed bytes.
     * @param lengthBytes   bytes of it that arrived.
     * @param deviceAddress displacement 0 of the typed buffer.
     * @param device        ordinal of the device that holds it.
     * @param count         instances the typed buffer holds.
     * @param type          compiled form of the datatype.
     * @throws StagingException when the device fails or does not finish within the inline timeout.
     */
    public void unpackToDeviceNow(
        final PackedHostBuffer packed,
        final long lengthBytes,
        final long deviceAddress,
        final int device,
        final long count,
        final CompiledType type)
    {
        final DeviceEvent event;
        try
        {
            final DevicePacker packer = runtime.packer(type, device);
            final DeviceStream stream = stream(device);
            event = takeInlineEvent(device);
            try
            {
                synchronized (stream)
                {
                    packer.unpack(stream, packed.address(), count, 0, lengthBytes, deviceAddress, event);
                }
            }
            catch (final RuntimeException ex)
            {
                event.close();
                throw ex;
            }
        }
        catch (final RuntimeException ex)
        {
            packed.release();
            throw new StagingException("unpacking " + lengthBytes + " bytes of " + count + " x " + type +
                " from host to device " + device + " failed: " + ex.getMessage(), ex);
        }
        awaitInline(event, packed, "unpacking " + lengthBytes + " bytes of " + count + " x " + type +
            " from host to device " + device);
        packed.release();
    }

    /**
     * Closes the streams and the vbuf pool.
     */
    public synchronized void close()
    {
        closed = true;
        BufferSlot slot;
        while ((slot = recentSlots.pollFirst()) != null)
        {
            slot.release();
        }
        for (int i = 0; i < inlineEvents.length; i++)
        {
            if (inlineEvents[i] != null)
            {
                inlineEvents[i].close();
                inlineEvents[i] = null;
            }
        }
        vbufs.close();
        for (int i = 0; i < streams.length; i++)
        {
            if (streams[i] != null)
            {
                streams[i].close();
                streams[i] = null;
            }
        }
    }

    private synchronized DeviceStream stream(final int device)
    {
        DeviceStream stream = streams[device];
        if (stream == null)
        {
            stream = runtime.createStream(device);
            streams[device] = stream;
        }
        return stream;
    }

    private void awaitInline(final DeviceEvent event, final PackedHostBuffer packed, final String what)
    {
        final long startNs = System.nanoTime();
        try
        {
            while (!event.isComplete())
            {
                if (System.nanoTime() - startNs > inlineTimeoutNs)
                {
                    whenDone(event).whenComplete((done, error) -> packed.release());
                    throw new StagingException(what + " did not finish within the inline staging timeout of " +
                        TimeUnit.NANOSECONDS.toMillis(inlineTimeoutNs) + " ms", null);
                }
                Thread.onSpinWait();
            }
        }
        catch (final StagingException ex)
        {
            throw ex;
        }
        catch (final RuntimeException ex)
        {
            event.close();
            packed.release();
            throw new StagingException(what + " failed: " + ex.getMessage(), ex);
        }
        keepInlineEvent(event);
    }

    /**
     * The inline variants wait for their own work, so one event per device serves all of them, recorded again each
     * time; with the slots below, a repeated inline call presents the device layer the same buffers and event, which
     * it turns into one cached launch.
     */
    private synchronized DeviceEvent takeInlineEvent(final int device)
    {
        final DeviceEvent event = inlineEvents[device];
        inlineEvents[device] = null;
        return event != null ? event : runtime.createEvent(device);
    }

    private synchronized void keepInlineEvent(final DeviceEvent event)
    {
        if (closed || inlineEvents[event.device()] != null)
        {
            event.close();
            return;
        }
        inlineEvents[event.device()] = event;
    }

    /**
     * The most recently released vbuf slots are handed out again first (the pool itself is first in, first out):
     * a ping-pong then keeps packing into the same slot.
     */
    private synchronized BufferSlot takeRecentSlot()
    {
        return recentSlots.pollFirst();
    }

    private synchronized void keepRecentSlot(final BufferSlot slot)
    {
        if (closed || recentSlots.size() >= RECENT_SLOTS)
        {
            slot.release();
            return;
        }
        recentSlots.addFirst(slot);
    }

    private CompletableFuture<DeviceEvent> whenDone(final DeviceEvent event)
    {
        return runtime.whenComplete(event).whenComplete((done, error) -> event.close());
    }
}
