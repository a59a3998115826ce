package io.stagecoach.pipeline.tune;

import java.nio.ByteBuffer;
import java.util.Arrays;

import io.stagecoach.device.Allocation;
import io.stagecoach.device.DeviceEvent;
import io.stagecoach.device.DevicePacker;
import io.stagecoach.device.DeviceRuntime;
import io.stagecoach.device.DeviceStream;
import io.stagecoach.protocol.datatype.CompiledType;
import io.stagecoach.protocol.datatype.Datatype;
import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Measures the stage costs of one device in well under a second: the pack of a contiguous chunk into pinned host
 * memory and its unpack back, each at two sizes (the smallest chunk and the largest), timed from the launch to the
 * completion the caller would see, the median of several runs; the fixed part and the throughput follow from the
 * two. The stream wire costs what two copies of host memory cost (into the log buffer and out of it) and a fixed
 * {@link #STREAM_WIRE_FIXED_NS}; the arena wire copies nothing and costs its two control messages,
 * {@link #ARENA_WIRE_FIXED_NS}. Contiguous costs stand for every datatype.
 */
public final class StageCostProbe
{
    /** Fixed cost of a chunk on the arena wire: a CHUNK and a CHUNK_DONE between two ranks of a node. */
    public static final double ARENA_WIRE_FIXED_NS = 5_000;
    /** Fixed cost of a chunk on the stream wire: its CTS, and the DATA fragments' framing. */
    public static final double STREAM_WIRE_FIXED_NS = 10_000;

    private static final int RUNS = 7;

    private StageCostProbe()
    {
    }

    /**
     * @param runtime       the device layer.
     * @param device        the device measured.
     * @param maxChunkBytes the largest chunk, at least twice {@link ChunkModel#MIN_CHUNK_BYTES}.
     * @return the costs, with the arena wire.
     */
    public static StageCosts measure(final DeviceRuntime runtime, final int device, final long maxChunkBytes)
    {
        final long small = ChunkModel.MIN_CHUNK_BYTES;
        final long large = Math.max(2 * small, maxChunkBytes);
        final CompiledType bytes = Datatype.BYTE.compiled();
        try (Allocation onDevice = runtime.allocate(device, large);
            Allocation pinned = runtime.allocatePinned(large);
            DeviceStream stream = runtime.createStream(device);
            DeviceEvent event = runtime.createEvent(device))
        {
            final DevicePacker packer = runtime.packer(bytes, device);
            final double[] pack = line(small, large,
                packNs(packer, stream, event, onDevice.address(), pinned.address(), small),
                packNs(packer, stream, event, onDevice.address(), pinned.address(), large));
            final double[] unpack = line(small, large,
                unpackNs(packer, stream, event, pinned.address(), onDevice.address(), small),
                unpackNs(packer, stream, event, pinned.address(), onDevice.address(), large));
            return new StageCosts(pack[0], pack[1], ARENA_WIRE_FIXED_NS, Double.POSITIVE_INFINITY, unpack[0],
                unpack[1]);
        }
    }

    /**
     * @param chunkBytes bytes copied.
     * @return host memory's copy throughput, bytes per ns, halved: a streamed chunk is copied twice.
     */
    public static double streamWireBytesPerNs(final long chunkBytes)
    {
        final int length = (int)Math.min(Integer.MAX_VALUE, chunkBytes);
        final UnsafeBuffer from = new UnsafeBuffer(ByteBuffer.allocateDirect(length));
        final ByteBuffer to = ByteBuffer.allocateDirect(length);
        final long[] samples = new long[RUNS];
        for (int i = -2; i < RUNS; i++)
        {
            final long startNs = System.nanoTime();
            from.getBytes(0, to, 0, length);
            if (i >= 0)
            {
                samples[i] = System.nanoTime() - startNs;
            }
        }
        BufferUtil.free(to);
        BufferUtil.free(from.byteBuffer());
        return length / (2.0 * Math.max(1, median(samples)));
    }

    private static long packNs(
        final DevicePacker packer, final DeviceStream stream, final DeviceEvent event, final long src, final long dst,
        final long lengthBytes)
    {
        return medianNs(event, () -> packer.pack(stream, src, lengthBytes, 0, lengthBytes, dst, event));
    }

    private static long unpackNs(
        final DevicePacker packer, final DeviceStream stream, final DeviceEvent event, final long src, final long dst,
        final long lengthBytes)
    {
        return medianNs(event, () -> packer.unpack(stream, src, lengthBytes, 0, lengthBytes, dst, event));
    }

    /**
     * @param event  that the launched work records.
     * @param launch enqueues the work and the recording of the event.
     * @return the median time from the launch to the event's completion seen, ns, over {@link #RUNS} runs after two
     * unmeasured ones.
     */
    static long medianNs(final DeviceEvent event, final Runnable launch)
    {
        final long[] samples = new long[RUNS];
        for (int i = -2; i < RUNS; i++)
        {
            final long startNs = System.nanoTime();
            launch.run();
            await(event);
            if (i >= 0)
            {
                samples[i] = System.nanoTime() - startNs;
            }
        }
        return median(samples);
    }

    private static void await(final DeviceEvent event)
    {
        while (!event.isComplete())
        {
            Thread.onSpinWait();
        }
    }

    /**
     * @return {fixed ns, bytes per ns} of the line through two measurements, the fixed part at least 0.
     */
    static double[] line(final long small, final long large, final long smallNs, final long largeNs)
    {
        final double perByte = Math.max(1e-6, (double)(largeNs - smallNs) / (large - small));
        return new double[]{ Math.max(0, smallNs - small * perByte), 1 / perByte };
    }

    private static long median(final long[] samples)
    {
        final long[] sorted = samples.clone();
        Arrays.sort(sorted);
        return sorted[sorted.length / 2];
    }
}
