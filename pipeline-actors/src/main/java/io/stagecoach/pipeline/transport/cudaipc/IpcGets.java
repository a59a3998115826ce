package io.stagecoach.pipeline.transport.cudaipc;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;

import io.stagecoach.device.Allocation;
import io.stagecoach.device.DeviceEvent;
import io.stagecoach.device.DeviceException;
import io.stagecoach.device.DeviceRuntime;
import io.stagecoach.device.DeviceStream;
import io.stagecoach.device.IpcHandle;
import io.stagecoach.device.IpcMapping;
import io.stagecoach.pipeline.trace.Stage;
import io.stagecoach.pipeline.trace.StageTracer;
import io.stagecoach.protocol.datatype.CompiledType;
import io.stagecoach.protocol.datatype.Datatype;

/**
 * Gets of device messages from same-node processes: the receiver opens the IPC handle of the sender's buffer
 * (cached per allocation by the device layer) and, on one stream per device, moves the message in one device
 * operation whatever its two layouts: one copy when both sides are contiguous, one unpack kernel reading the peer's
 * memory when only the source is, one pack kernel writing the destination when only the destination is, and one
 * kernel that reads the source's layout and writes the destination's
 * ({@link io.stagecoach.device.DeviceTranscoder}, pack and unpack fused) when neither is. The pair of kernels through
 * device scratch memory that the last case took before is gone: no case needs it, since the fused kernel runs
 * wherever the pair ran (every buffer reachable by the kernels of one device), and between two devices neither runs
 * (a kernel of one device does not read another's memory; only a copy between contiguous buffers crosses devices, the
 * rest comes through the stage pipeline). A host destination gets the packed bytes in pinned memory, which the caller
 * unpacks on completion; that memory is kept for the next gets, up to {@link #MAX_SPARE_PINNED_BYTES}, since pinning
 * host memory costs milliseconds. Each get records an event; {@link #poll} hands completed gets back in the order they
 * started, from the caller's own thread: nothing waits and no other thread is involved. Not thread-safe: one thread
 * (the engine's) drives it.
 */
public final class IpcGets implements AutoCloseable
{
    /** Pinned host memory kept for later gets to host destinations, at most. */
    public static final long MAX_SPARE_PINNED_BYTES = 256L << 20;
    /** Ranges of host memory kept registered with the device for gets, at most. */
    public static final int MAX_REGISTRATIONS = 32;
    private static final long MIN_PINNED_BYTES = 64 * 1024;
    /** The layout of packed bytes: one byte per instance. */
    private static final CompiledType PACKED = Datatype.BYTE.compiled();
    private static final int MAX_LAYOUTS = 256;

    /** Fills pinned memory with a message's packed bytes, on the caller's thread. */
    @FunctionalInterface
    public interface Filler
    {
        /**
         * @param address of pinned memory with room for the packed bytes.
         * @throws RuntimeException when the bytes cannot be had: the get does not start.
         */
        void fill(long address);
    }

    /** Told of each get that ended, in the order they started. */
    public interface Handler
    {
        /**
         * @param attachment    given to {@link #start}.
         * @param packedAddress for a host destination, where the packed bytes lie (pinned memory released after this
         *                      returns); 0 for a device destination.
         * @param failure       why the device work failed; null when the get succeeded.
         */
        void done(Object attachment, long packedAddress, RuntimeException failure);
    }

    private static final class Get
    {
        DeviceEvent event;
        IpcMapping mapping;
        Allocation staging;
        Allocation source;
        Object attachment;
        long transferId;
        long issuedNs;
        long bytes;
        int device;
    }

    private final DeviceRuntime runtime;
    private final StageTracer tracer;
    private final HostRegistrations registrations;
    private final ArrayDeque<Allocation> sparePinned = new ArrayDeque<>();
    private long sparePinnedBytes;
    private final DeviceStream[] streams;
    private final ArrayDeque<Get> inFlight = new ArrayDeque<>();
    private final ArrayDeque<Get> idle = new ArrayDeque<>();
    private final Map<ByteBuffer, CompiledType> layouts = new LinkedHashMap<>(16, 0.75f, true)
    {
        protected boolean removeEldestEntry(final Map.Entry<ByteBuffer, CompiledType> eldest)
        {
            return size() > MAX_LAYOUTS;
        }
    };
    private long started;
    private boolean closed;

    /**
     * @param runtime the device layer of this process.
     * @param tracer  told of each get's device work ({@link Stage#GET}), {@link StageTracer#OFF} for none.
     */
    public IpcGets(final DeviceRuntime runtime, final StageTracer tracer)
    {
        this.runtime = runtime;
        this.tracer = tracer;
        this.registrations = new HostRegistrations(runtime, MAX_REGISTRATIONS);
        this.streams = new DeviceStream[runtime.deviceCount()];
    }

    /**
     * One instance per distinct layout that peers send, so that the device layer builds its kernels once per layout.
     *
     * @param encoded the layout as peers encode it.
     * @param decode  reads it, on first sight.
     * @return the layout.
     */
    public CompiledType layout(final ByteBuffer encoded, final Function<ByteBuffer, CompiledType> decode)
    {
        return layouts.computeIfAbsent(encoded, decode);
    }

    /**
     * Starts a get: the {@code packedBytes} of {@code sourceCount} instances of {@code sourceLayout} at displacement
     * {@code displacement} of the exported range go to {@code destinationCount} instances of
     * {@code destinationLayout} at {@code destinationAddress} (device memory of this process, or host memory
     * registered with the device), or, when {@code destinationLayout} is null, to pinned host memory given to the
     * handler.
     *
     * @param transferId the receiver's number of the transfer, for the stage trace.
     * @param device     the device whose stream does the work, the destination's; -1 for the device that holds the
     *                   source (a host destination).
     * @throws RuntimeException when the handle cannot be opened or the work cannot be enqueued; nothing is left
     *                          open then.
     */
    public void start(
        final long transferId,
        final IpcHandle handle,
        final long displacement,
        final long sourceCount,
        final CompiledType sourceLayout,
        final int device,
        final long destinationAddress,
        final long destinationCount,
        final CompiledType destinationLayout,
        final long packedBytes,
        final Object attachment)
    {
        launch(transferId, packedBytes, attachment, get ->
        {
            get.mapping = runtime.openIpc(handle);
            final int sourceDevice = runtime.lookup(get.mapping.address()).device();
            begin(get, get.mapping.address() + displacement, sourceCount, sourceLayout, sourceDevice,
                device < 0 ? sourceDevice : device, destinationAddress, destinationCount, destinationLayout,
                packedBytes);
        });
    }

    /**
     * Starts a get out of host memory of this process that the device can reach (a same-node peer's shared arena,
     * mapped here and registered, {@link #register}) into device memory: one copy when both layouts are contiguous,
     * otherwise the kernels read or write the host memory in place.
     *
     * @param transferId the receiver's number of the transfer, for the stage trace.
     * @param device     the destination's device, whose stream does the work.
     * @throws RuntimeException when the work cannot be enqueued.
     */
    public void startFromHost(
        final long transferId,
        final long sourceAddress,
        final long sourceCount,
        final CompiledType sourceLayout,
        final int device,
        final long destinationAddress,
        final long destinationCount,
        final CompiledType destinationLayout,
        final long packedBytes,
        final Object attachment)
    {
        launch(transferId, packedBytes, attachment, get -> begin(get, sourceAddress, sourceCount, sourceLayout, device,
            device, destinationAddress, destinationCount, destinationLayout, packedBytes));
    }

    /**
     * Starts a get of packed bytes that the filler copies into pinned memory first (out of a same-node peer's
     * process, where its memory is not shared), on the caller's thread, then to {@code destinationCount} instances
     * of {@code destinationLayout} in device memory: one copy, or the unpack kernel reading the pinned memory. The
     * pinned memory is kept for the next gets.
     *
     * @param transferId the receiver's number of the transfer, for the stage trace.
     * @param device     the destination's device, whose stream does the work.
     * @throws RuntimeException when the filler fails or the work cannot be enqueued.
     */
    public void startThroughPinned(
        final long transferId,
        final Filler filler,
        final long packedBytes,
        final int device,
        final long destinationAddress,
        final long destinationCount,
        final CompiledType destinationLayout,
        final Object attachment)
    {
        launch(transferId, packedBytes, attachment, get ->
        {
            get.source = takePinned(packedBytes);
            filler.fill(get.source.address());
            begin(get, get.source.address(), packedBytes, PACKED, device, device, destinationAddress,
                destinationCount, destinationLayout, packedBytes);
        });
    }

    /**
     * Registers host memory with the device, for gets to read or write it in place; registrations are kept for the
     * next gets (at most {@link #MAX_REGISTRATIONS}; a new one drops those it overlaps).
     *
     * @return false when the device refuses the range.
     */
    public boolean register(final long address, final long lengthBytes)
    {
        return registrations.register(address, lengthBytes);
    }

    /**
     * @return ranges of host memory registered with the device for gets now.
     */
    public int registeredRanges()
    {
        return registrations.size();
    }

    /** What a get does before its device work is enqueued. */
    @FunctionalInterface
    private interface Setup
    {
        void prepare(Get get);
    }

    /**
     * Takes a get, lets the setup enqueue its work, and puts it in flight; a setup that throws leaves nothing open.
     */
    private void launch(final long transferId, final long packedBytes, final Object attachment, final Setup setup)
    {
        if (closed)
        {
            throw new IllegalStateException("IPC gets are closed");
        }
        final Get get = idle.isEmpty() ? new Get() : idle.pollFirst();
        try
        {
            setup.prepare(get);
        }
        catch (final RuntimeException ex)
        {
            recycle(get);
            throw ex;
        }
        get.transferId = transferId;
        get.bytes = packedBytes;
        get.attachment = attachment;
        inFlight.addLast(get);
        started++;
    }

    private void begin(
        final Get get,
        final long source,
        final long sourceCount,
        final CompiledType sourceLayout,
        final int sourceDevice,
        final int on,
        final long destinationAddress,
        final long destinationCount,
        final CompiledType destinationLayout,
        final long packedBytes)
    {
        if (on != sourceDevice && !(sourceLayout.isContiguous() && destinationLayout != null &&
            destinationLayout.isContiguous()))
        {
            throw new DeviceException("a kernel of device " + on + " cannot read the memory of device " +
                sourceDevice + " that the handle maps; only a copy between contiguous buffers crosses devices");
        }
        final DeviceStream stream = stream(on);
        final long destination;
        final CompiledType layout;
        final long count;
        if (destinationLayout == null)
        {
            get.staging = takePinned(packedBytes);
            destination = get.staging.address();
            layout = null;
            count = 0;
        }
        else
        {
            destination = destinationAddress;
            layout = destinationLayout;
            count = destinationCount;
        }
        enqueue(stream, on, source, sourceCount, sourceLayout, destination, count, layout, packedBytes);
        if (get.event == null || get.event.device() != on)
        {
            if (get.event != null)
            {
                get.event.close();
            }
            get.event = runtime.createEvent(on);
        }
        stream.record(get.event);
        get.device = on;
        get.issuedNs = tracer.isEnabled() ? System.nanoTime() : 0;
    }

    /**
     * Hands completed gets to the handler, in the order they started.
     *
     * @return gets that ended; while gets are in flight and none ended, 1 anyway, so that the caller's idle
     * strategy keeps polling rather than parks.
     */
    public int poll(final Handler handler)
    {
        int ended = 0;
        Get get;
        while ((get = inFlight.peekFirst()) != null)
        {
            RuntimeException failure = null;
            try
            {
                if (!get.event.isComplete())
                {
                    break;
                }
            }
            catch (final RuntimeException ex)
            {
                failure = ex;
            }
            inFlight.pollFirst();
            ended++;
            if (tracer.isEnabled())
            {
                tracer.record(get.transferId, 0, Stage.GET, get.issuedNs, System.nanoTime(), get.bytes, get.device);
            }
            try
            {
                handler.done(get.attachment, get.staging == null ? 0 : get.staging.address(), failure);
            }
            finally
            {
                recycle(get);
            }
        }
        return ended > 0 || inFlight.isEmpty() ? ended : 1;
    }

    /**
     * @return gets started so far.
     */
    public long started()
    {
        return started;
    }

    /**
     * @return gets whose device work has not been seen to end.
     */
    public int inFlight()
    {
        return inFlight.size();
    }

    /**
     * Waits for the device work of every get in flight (their memory is in use until then) and frees what the gets
     * hold; the gets in flight end unreported, their requests failed by the caller.
     */
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        for (final DeviceStream stream : streams)
        {
            if (stream != null)
            {
                try
                {
                    stream.synchronize();
                }
                catch (final RuntimeException ignored)
                {
                    // a failed stream holds no more work
                }
            }
        }
        Get get;
        while ((get = inFlight.pollFirst()) != null)
        {
            recycle(get);
        }
        for (final Allocation spare : sparePinned)
        {
            spare.free();
        }
        sparePinned.clear();
        registrations.close();
        for (final Get spare : idle)
        {
            if (spare.event != null)
            {
                spare.event.close();
            }
        }
        idle.clear();
        for (int i = 0; i < streams.length; i++)
        {
            if (streams[i] != null)
            {
                streams[i].close();
            }
        }
    }

    private void enqueue(
        final DeviceStream stream,
        final int device,
        final long source,
        final long sourceCount,
        final CompiledType sourceLayout,
        final long destination,
        final long destinationCount,
        final CompiledType destinationLayout,
        final long packedBytes)
    {
        final boolean sourceRun = sourceLayout.isContiguous();
        final boolean destinationRun = destinationLayout == null || destinationLayout.isContiguous();
        final long sourceStart = sourceRun ? source + sourceLayout.dataLowBytes(sourceCount) : 0;
        final long destinationStart = destinationLayout == null ? destination :
            destinationRun ? destination + destinationLayout.dataLowBytes(destinationCount) : 0;
        if (sourceRun && destinationRun)
        {
            stream.copy(destinationStart, sourceStart, packedBytes);
        }
        else if (sourceRun)
        {
            runtime.packer(destinationLayout, device)
                .unpack(stream, sourceStart, destinationCount, 0, packedBytes, destination);
        }
        else if (destinationRun)
        {
            runtime.packer(sourceLayout, device).pack(stream, source, sourceCount, 0, packedBytes, destinationStart);
        }
        else
        {
            runtime.transcoder(sourceLayout, destinationLayout, device)
                .transcode(stream, source, sourceCount, destination, destinationCount, 0, packedBytes);
        }
    }

    private DeviceStream stream(final int device)
    {
        if (streams[device] == null)
        {
            streams[device] = runtime.createStream(device);
        }
        return streams[device];
    }

    private Allocation takePinned(final long lengthBytes)
    {
        for (final Allocation spare : sparePinned)
        {
            if (spare.lengthBytes() >= lengthBytes)
            {
                sparePinned.remove(spare);
                sparePinnedBytes -= spare.lengthBytes();
                return spare;
            }
        }
        return runtime.allocatePinned(Math.max(MIN_PINNED_BYTES, Long.highestOneBit(Math.max(1, lengthBytes - 1)) << 1));
    }

    private void givePinned(final Allocation buffer)
    {
        if (closed || buffer.lengthBytes() > MAX_SPARE_PINNED_BYTES)
        {
            buffer.free();
            return;
        }
        sparePinned.addLast(buffer);
        sparePinnedBytes += buffer.lengthBytes();
        while (sparePinnedBytes > MAX_SPARE_PINNED_BYTES)
        {
            final Allocation oldest = sparePinned.pollFirst();
            sparePinnedBytes -= oldest.lengthBytes();
            oldest.free();
        }
    }

    private void recycle(final Get get)
    {
        if (get.mapping != null)
        {
            get.mapping.close();
            get.mapping = null;
        }
        if (get.staging != null)
        {
            givePinned(get.staging);
            get.staging = null;
        }
        if (get.source != null)
        {
            givePinned(get.source);
            get.source = null;
        }
        get.attachment = null;
        idle.addLast(get);
    }
}
