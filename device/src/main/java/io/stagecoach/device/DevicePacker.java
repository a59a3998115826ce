package io.stagecoach.device;

import io.stagecoach.protocol.datatype.CompiledType;

/**
 * Pack and unpack kernels for one committed datatype on one device. Any byte range of the packed stream of
 * {@code count} instances packs independently, in one launch; a range that lies in one contiguous block is a plain
 * copy instead. The typed buffer and the packed buffer may each be device memory of this device or mapped host memory
 * (pinned or registered): packing straight into pinned host memory fuses the pack with the device-to-host copy.
 * Obtain one from {@link DeviceRuntime#packer(CompiledType, int)}, which builds it once per datatype and device.
 */
public final class DevicePacker
{
    /**
     * Contiguous ranges up to this length still take a kernel when a completion event is recorded with them, so that
     * the launch signals the event; longer ones are a copy followed by the recording.
     */
    public static final long KERNEL_COPY_LIMIT_BYTES = 1 << 20;

    private final DeviceRuntime runtime;
    private final int device;
    private final CompiledType type;
    private final TypeLayout layout;
    private final BackendPacker backend;

    DevicePacker(final DeviceRuntime runtime, final int device, final CompiledType type, final BackendPacker backend)
    {
        this.runtime = runtime;
        this.device = device;
        this.type = type;
        this.layout = new TypeLayout(type);
        this.backend = backend;
    }

    /**
     * @return the datatype's compiled form.
     */
    public CompiledType type()
    {
        return type;
    }

    /**
     * @return the device the kernels run on.
     */
    public int device()
    {
        return device;
    }

    /**
     * Enqueue: packed bytes [packedOffset, packedOffset + lengthBytes) of the {@code count} instances at
     * {@code srcAddress} go to {@code dstAddress}.
     *
     * @param stream       of this packer's device.
     * @param srcAddress   the typed buffer (the MPI buffer address).
     * @param count        instances in the buffer.
     * @param packedOffset first packed byte to produce.
     * @param lengthBytes  packed bytes to produce; zero does nothing.
     * @param dstAddress   receives packed byte {@code packedOffset}.
     */
    public void pack(
        final DeviceStream stream,
        final long srcAddress,
        final long count,
        final long packedOffset,
        final long lengthBytes,
        final long dstAddress)
    {
        checkStream(stream);
        checkRange(count, packedOffset, lengthBytes);
        if (lengthBytes == 0)
        {
            return;
        }
        final MemoryRegion typed = typedRegion(srcAddress, count, "pack source");
        final MemoryRegion packed = runtime.accessibleRegion(dstAddress, lengthBytes, device, "pack destination");
        if (layout.runRemaining(count, packedOffset) >= lengthBytes)
        {
            stream.copy(dstAddress, srcAddress + layout.displacement(packedOffset), lengthBytes);
            return;
        }
        backend.pack(
            stream.backend(),
            typed.toDeviceAddress(srcAddress),
            count,
            packedOffset,
            lengthBytes,
            packed.toDeviceAddress(dstAddress));
    }

    /**
     * {@link #pack(DeviceStream, long, long, long, long, long)}, then a recording of {@code completion}, fused where
     * the back end can: on CUDA a repeated call is one cached graph launch whose kernel signals the event itself.
     *
     * @param stream       of this packer's device.
     * @param srcAddress   the typed buffer (the MPI buffer address).
     * @param count        instances in the buffer.
     * @param packedOffset first packed byte to produce.
     * @param lengthBytes  packed bytes to produce; zero only records the event.
     * @param dstAddress   receives packed byte {@code packedOffset}.
     * @param completion   recorded once the pack is done.
     */
    public void pack(
        final DeviceStream stream,
        final long srcAddress,
        final long count,
        final long packedOffset,
        final long lengthBytes,
        final long dstAddress,
        final DeviceEvent completion)
    {
        checkStream(stream);
        checkEvent(completion);
        checkRange(count, packedOffset, lengthBytes);
        if (lengthBytes == 0 || layout.runRemaining(count, packedOffset) >= lengthBytes &&
            lengthBytes > KERNEL_COPY_LIMIT_BYTES)
        {
            pack(stream, srcAddress, count, packedOffset, lengthBytes, dstAddress);
            stream.record(completion);
            return;
        }
        final MemoryRegion typed = typedRegion(srcAddress, count, "pack source");
        final MemoryRegion packed = runtime.accessibleRegion(dstAddress, lengthBytes, device, "pack destination");
        backend.pack(stream.backend(), typed.toDeviceAddress(srcAddress), count, packedOffset, lengthBytes,
            packed.toDeviceAddress(dstAddress), completion.backend(), isHost(typed) || isHost(packed));
    }

    /**
     * {@link #unpack(DeviceStream, long, long, long, long, long)}, then a recording of {@code completion}, fused where
     * the back end can.
     *
     * @param stream       of this packer's device.
     * @param srcAddress   holds packed byte {@code packedOffset}.
     * @param count        instances in the typed buffer.
     * @param packedOffset first packed byte consumed.
     * @param lengthBytes  packed bytes consumed; zero only records the event.
     * @param dstAddress   the typed buffer (the MPI buffer address).
     * @param completion   recorded once the unpack is done.
     */
    public void unpack(
        final DeviceStream stream,
        final long srcAddress,
        final long count,
        final long packedOffset,
        final long lengthBytes,
        final long dstAddress,
        final DeviceEvent completion)
    {
        checkStream(stream);
        checkEvent(completion);
        checkRange(count, packedOffset, lengthBytes);
        if (lengthBytes == 0 || layout.runRemaining(count, packedOffset) >= lengthBytes &&
            lengthBytes > KERNEL_COPY_LIMIT_BYTES)
        {
            unpack(stream, srcAddress, count, packedOffset, lengthBytes, dstAddress);
            stream.record(completion);
            return;
        }
        final MemoryRegion packed = runtime.accessibleRegion(srcAddress, lengthBytes, device, "unpack source");
        final MemoryRegion typed = typedRegion(dstAddress, count, "unpack destination");
        backend.unpack(stream.backend(), packed.toDeviceAddress(srcAddress), count, packedOffset, lengthBytes,
            typed.toDeviceAddress(dstAddress), completion.backend(), isHost(typed) || isHost(packed));
    }

    /**
     * Enqueue: packed bytes [packedOffset, packedOffset + lengthBytes), read from {@code srcAddress}, scatter into the
     * {@code count} instances at {@code dstAddress}.
     *
     * @param stream       of this packer's device.
     * @param srcAddress   holds packed byte {@code packedOffset}.
     * @param count        instances in the typed buffer.
     * @param packedOffset first packed byte consumed.
     * @param lengthBytes  packed bytes consumed; zero does nothing.
     * @param dstAddress   the typed buffer (the MPI buffer address).
     */
    public void unpack(
        final DeviceStream stream,
        final long srcAddress,
        final long count,
        final long packedOffset,
        final long lengthBytes,
        final long dstAddress)
    {
        checkStream(stream);
        checkRange(count, packedOffset, lengthBytes);
        if (lengthBytes == 0)
        {
            return;
        }
        final MemoryRegion packed = runtime.accessibleRegion(srcAddress, lengthBytes, device, "unpack source");
        final MemoryRegion typed = typedRegion(dstAddress, count, "unpack destination");
        if (layout.runRemaining(count, packedOffset) >= lengthBytes)
        {
            stream.copy(dstAddress + layout.displacement(packedOffset), srcAddress, lengthBytes);
            return;
        }
        backend.unpack(
            stream.backend(),
            packed.toDeviceAddress(srcAddress),
            count,
            packedOffset,
            lengthBytes,
            typed.toDeviceAddress(dstAddress));
    }

    /**
     * A job of a {@link PackBatch}, checked as {@link #pack} and {@link #unpack} check their arguments, with device
     * addresses.
     */
    BackendBatch.Move move(final PackJob job, final String label)
    {
        checkRange(job.count(), job.packedOffset(), job.lengthBytes());
        if (job.lengthBytes() == 0)
        {
            throw new IllegalArgumentException(label + " of a pack batch moves 0 bytes");
        }
        final MemoryRegion typed = typedRegion(job.typedAddress(), job.count(),
            label + (job.pack() ? " pack source" : " unpack destination"));
        final MemoryRegion packed = runtime.accessibleRegion(job.packedAddress(), job.lengthBytes(), device,
            label + (job.pack() ? " pack destination" : " unpack source"));
        return new BackendBatch.Move(backend, job.pack(), typed.toDeviceAddress(job.typedAddress()), job.count(),
            job.packedOffset(), job.lengthBytes(), packed.toDeviceAddress(job.packedAddress()));
    }

    void close()
    {
        backend.close();
    }

    BackendPacker backend()
    {
        return backend;
    }

    TypeLayout layout()
    {
        return layout;
    }

    MemoryRegion typedRegion(final long address, final long count, final String role)
    {
        final long low = type.dataLowBytes(count);
        final long high = type.dataHighBytes(count);
        return runtime.accessibleRegion(address + low, high - low, device, role + " (datatype footprint)");
    }

    void checkStream(final DeviceStream stream)
    {
        if (stream.device() != device)
        {
            throw new IllegalArgumentException(
                "stream of device " + stream.device() + " given to a packer of device " + device);
        }
    }

    static boolean isHost(final MemoryRegion region)
    {
        return region.type() != MemoryType.DEVICE;
    }

    void checkEvent(final DeviceEvent completion)
    {
        if (completion.runtime() != runtime || completion.device() != device)
        {
            throw new IllegalArgumentException("completion event of device " + completion.device() +
                " (or of another runtime) given to a packer of device " + device);
        }
    }

    void checkRange(final long count, final long packedOffset, final long lengthBytes)
    {
        checkRange("", count, packedOffset, lengthBytes);
    }

    /**
     * @param role named first in the error ("copy source: "), or empty.
     */
    void checkRange(final String role, final long count, final long packedOffset, final long lengthBytes)
    {
        if (count < 0)
        {
            throw new IllegalArgumentException(role + "count " + count + " is negative");
        }
        if (packedOffset < 0 || lengthBytes < 0)
        {
            throw new IllegalArgumentException(
                role + "packed range offset " + packedOffset + " length " + lengthBytes + " has a negative part");
        }
        final long total = count * layout.sizeBytes();
        if (packedOffset + lengthBytes > total)
        {
            throw new IllegalArgumentException(role + "packed range [" + packedOffset + ", " +
                (packedOffset + lengthBytes) + ") exceeds the " + total + " packed bytes of " + count +
                " instances of " + layout.sizeBytes() + " bytes");
        }
    }
}
