package io.stagecoach.device;

import io.stagecoach.protocol.datatype.CompiledType;

/**
 * Copies between two committed datatypes' layouts on one device: any byte range of the packed stream is read out of
 * the source's layout and written into the destination's in one launch, pack and unpack fused, with no packed bytes
 * in between (on CUDA one thread per packed unit finds the unit's address on each side). Both sides' units agree: a
 * thread moves the largest power of two up to 16 bytes that divides every offset, stride and run of both layouts,
 * both addresses and the range. A range that lies in one contiguous run on both sides is a plain copy instead. Either
 * buffer may be device memory of this device (another process' memory opened over IPC included) or mapped host
 * memory; the two must not overlap. Obtain one from {@link DeviceRuntime#transcoder(CompiledType, CompiledType, int)},
 * which builds it once per pair of datatypes and device.
 */
public final class DeviceTranscoder
{
    private final DeviceRuntime runtime;
    private final DevicePacker source;
    private final DevicePacker destination;
    private final BackendTranscoder backend;

    DeviceTranscoder(
        final DeviceRuntime runtime, final DevicePacker source, final DevicePacker destination,
        final BackendTranscoder backend)
    {
        this.runtime = runtime;
        this.source = source;
        this.destination = destination;
        this.backend = backend;
    }

    /**
     * @return the source's datatype.
     */
    public CompiledType source()
    {
        return source.type();
    }

    /**
     * @return the destination's datatype.
     */
    public CompiledType destination()
    {
        return destination.type();
    }

    /**
     * @return the device the copies run on.
     */
    public int device()
    {
        return source.device();
    }

    /**
     * Enqueue: packed bytes [packedOffset, packedOffset + lengthBytes) of the {@code srcCount} instances at
     * {@code srcAddress} go to the same packed bytes of the {@code dstCount} instances at {@code dstAddress}.
     *
     * @param stream       of this transcoder's device.
     * @param srcAddress   the source's typed buffer (displacement 0).
     * @param srcCount     instances in it.
     * @param dstAddress   the destination's typed buffer (displacement 0).
     * @param dstCount     instances in it.
     * @param packedOffset first packed byte moved.
     * @param lengthBytes  packed bytes moved, within both packed streams; zero does nothing.
     * @throws IllegalArgumentException naming the range and the limit where it leaves either packed stream.
     * @throws DeviceException naming the buffer where either datatype's footprint leaves its allocation or lies in
     *                         memory this device's kernels cannot reach.
     */
    public void transcode(
        final DeviceStream stream,
        final long srcAddress,
        final long srcCount,
        final long dstAddress,
        final long dstCount,
        final long packedOffset,
        final long lengthBytes)
    {
        source.checkStream(stream);
        checkRange(srcCount, dstCount, packedOffset, lengthBytes);
        if (lengthBytes == 0)
        {
            return;
        }
        final MemoryRegion from = source.typedRegion(srcAddress, srcCount, "copy source");
        final MemoryRegion to = destination.typedRegion(dstAddress, dstCount, "copy destination");
        if (isOneRun(srcCount, dstCount, packedOffset, lengthBytes))
        {
            copyRun(stream, srcAddress, dstAddress, packedOffset, lengthBytes);
            return;
        }
        backend.transcode(stream.backend(), from.toDeviceAddress(srcAddress), srcCount, to.toDeviceAddress(dstAddress),
            dstCount, packedOffset, lengthBytes);
    }

    /**
     * {@link #transcode(DeviceStream, long, long, long, long, long, long)}, then a recording of {@code completion},
     * fused where the back end can: on CUDA a repeated call is one cached graph launch whose kernel signals the event
     * itself. A range in one run on both sides stays a kernel up to {@link DevicePacker#KERNEL_COPY_LIMIT_BYTES}, so
     * that the launch signals the event.
     *
     * @param stream       of this transcoder's device.
     * @param srcAddress   the source's typed buffer (displacement 0).
     * @param srcCount     instances in it.
     * @param dstAddress   the destination's typed buffer (displacement 0).
     * @param dstCount     instances in it.
     * @param packedOffset first packed byte moved.
     * @param lengthBytes  packed bytes moved, within both packed streams; zero only records the event.
     * @param completion   recorded once the copy is done.
     */
    public void transcode(
        final DeviceStream stream,
        final long srcAddress,
        final long srcCount,
        final long dstAddress,
        final long dstCount,
        final long packedOffset,
        final long lengthBytes,
        final DeviceEvent completion)
    {
        source.checkStream(stream);
        source.checkEvent(completion);
        checkRange(srcCount, dstCount, packedOffset, lengthBytes);
        if (lengthBytes == 0 || lengthBytes > DevicePacker.KERNEL_COPY_LIMIT_BYTES &&
            isOneRun(srcCount, dstCount, packedOffset, lengthBytes))
        {
            transcode(stream, srcAddress, srcCount, dstAddress, dstCount, packedOffset, lengthBytes);
            stream.record(completion);
            return;
        }
        final MemoryRegion from = source.typedRegion(srcAddress, srcCount, "copy source");
        final MemoryRegion to = destination.typedRegion(dstAddress, dstCount, "copy destination");
        backend.transcode(stream.backend(), from.toDeviceAddress(srcAddress), srcCount, to.toDeviceAddress(dstAddress),
            dstCount, packedOffset, lengthBytes, completion.backend(),
            DevicePacker.isHost(from) || DevicePacker.isHost(to));
    }

    void close()
    {
        backend.close();
    }

    private boolean isOneRun(final long srcCount, final long dstCount, final long packedOffset, final long lengthBytes)
    {
        return source.layout().runRemaining(srcCount, packedOffset) >= lengthBytes &&
            destination.layout().runRemaining(dstCount, packedOffset) >= lengthBytes;
    }

    private void copyRun(final DeviceStream stream, final long srcAddress, final long dstAddress,
        final long packedOffset, final long lengthBytes)
    {
        stream.copy(dstAddress + destination.layout().displacement(packedOffset),
            srcAddress + source.layout().displacement(packedOffset), lengthBytes);
    }

    private void checkRange(final long srcCount, final long dstCount, final long packedOffset, final long lengthBytes)
    {
        source.checkRange("copy source: ", srcCount, packedOffset, lengthBytes);
        destination.checkRange("copy destination: ", dstCount, packedOffset, lengthBytes);
    }
}
