package io.stagecoach.pipeline.tune;

import java.util.function.LongConsumer;

import io.stagecoach.device.Allocation;
import io.stagecoach.device.DeviceEvent;
import io.stagecoach.device.DeviceException;
import io.stagecoach.device.DevicePacker;
import io.stagecoach.device.DeviceRuntime;
import io.stagecoach.device.DeviceStream;
import io.stagecoach.protocol.datatype.CompiledType;
import io.stagecoach.protocol.datatype.Datatype;

/**
 * Measures the device work of the one-sided and eager paths on one device ({@link PathCosts}), each timed from the
 * launch to the completion the caller sees, the median of several runs: a device-to-device copy and its event, and a
 * pack kernel between device buffers (blocks of {@link #BLOCK_BYTES} with gaps of as many), each at a few bytes (the
 * fixed part) and at a size large enough that its bytes take at least as long as the fixed part, from 1 MiB up to
 * {@link #MAX_LARGE_BYTES} by doubling (the throughput, from the line through both); and a message of
 * {@link #SMALL_BYTES} packed into pinned host memory and unpacked out of it, as the eager path stages it. Where the
 * device has no room for the largest buffers, the sizes stop at the largest chunk instead. Takes well under a second.
 */
public final class PathCostProbe
{
    /** Packed bytes of the small copy and of the staged message: the fixed parts. */
    public static final long SMALL_BYTES = 8;
    /** The first size tried for the throughputs. */
    public static final long MIN_LARGE_BYTES = 1L << 20;
    /** The largest size tried for the throughputs. */
    public static final long MAX_LARGE_BYTES = 16L << 20;
    /** Bytes of each block the measured kernel packs; a gap of as many follows each. */
    public static final long BLOCK_BYTES = 64;

    private PathCostProbe()
    {
    }

    /**
     * @param runtime       the device layer.
     * @param device        the device measured.
     * @param maxChunkBytes the largest chunk of the stage pipeline: the largest size where the device has no room
     *                      for {@link #MAX_LARGE_BYTES}.
     * @return the costs.
     */
    public static PathCosts measure(final DeviceRuntime runtime, final int device, final long maxChunkBytes)
    {
        try
        {
            return measureUpTo(runtime, device, MAX_LARGE_BYTES);
        }
        catch (final DeviceException ex)
        {
            return measureUpTo(runtime, device, Math.max(16 * BLOCK_BYTES, Math.min(MIN_LARGE_BYTES, maxChunkBytes)));
        }
    }

    private static PathCosts measureUpTo(final DeviceRuntime runtime, final int device, final long maxLargeBytes)
    {
        final CompiledType bytes = Datatype.BYTE.compiled();
        final CompiledType blocks =
            Datatype.contiguous(BLOCK_BYTES, Datatype.BYTE).resized(0, 2 * BLOCK_BYTES).commit().compiled();
        try (Allocation source = runtime.allocate(device, 2 * maxLargeBytes);
            Allocation destination = runtime.allocate(device, maxLargeBytes);
            Allocation pinned = runtime.allocatePinned(4096);
            DeviceStream stream = runtime.createStream(device);
            DeviceEvent event = runtime.createEvent(device))
        {
            final long from = source.address();
            final long to = destination.address();
            final double[] copy = line(event, SMALL_BYTES, maxLargeBytes, lengthBytes ->
            {
                stream.copy(to, from, lengthBytes);
                stream.record(event);
            });
            final DevicePacker kernel = runtime.packer(blocks, device);
            final double[] pack = line(event, 2 * BLOCK_BYTES, maxLargeBytes, lengthBytes ->
                kernel.pack(stream, from, lengthBytes / BLOCK_BYTES, 0, lengthBytes, to, event));
            final DevicePacker inline = runtime.packer(bytes, device);
            final long inlinePackNs = StageCostProbe.medianNs(event, () ->
                inline.pack(stream, from, SMALL_BYTES, 0, SMALL_BYTES, pinned.address(), event));
            final long inlineUnpackNs = StageCostProbe.medianNs(event, () ->
                inline.unpack(stream, pinned.address(), SMALL_BYTES, 0, SMALL_BYTES, to, event));
            return new PathCosts(copy[0], copy[1], pack[0], pack[1], inlinePackNs, inlineUnpackNs);
        }
    }

    /**
     * @return {fixed ns, bytes per ns} of the work at a small size and at the first large one whose bytes take at
     * least as long as the small size's whole time.
     */
    private static double[] line(
        final DeviceEvent event, final long smallBytes, final long maxLargeBytes, final LongConsumer launch)
    {
        final long smallNs = StageCostProbe.medianNs(event, () -> launch.accept(smallBytes));
        long largeBytes = Math.min(MIN_LARGE_BYTES, maxLargeBytes);
        long largeNs = StageCostProbe.medianNs(event, () -> launch.accept(Math.min(MIN_LARGE_BYTES, maxLargeBytes)));
        while (largeNs - smallNs < smallNs && largeBytes * 2 <= maxLargeBytes)
        {
            final long doubled = largeBytes * 2;
            largeNs = StageCostProbe.medianNs(event, () -> launch.accept(doubled));
            largeBytes = doubled;
        }
        return StageCostProbe.line(smallBytes, largeBytes, smallNs, largeNs);
    }
}
