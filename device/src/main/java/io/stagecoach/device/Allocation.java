package io.stagecoach.device;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Memory owned by a {@link DeviceRuntime}: device memory, pinned (mapped) host memory, or registered host memory.
 * Free it exactly once; a second free, or a later use of its addresses, is a {@link DeviceException}.
 */
public final class Allocation implements AutoCloseable
{
    private final DeviceRuntime runtime;
    private final MemoryRegion region;
    private final AtomicBoolean freed = new AtomicBoolean();

    Allocation(final DeviceRuntime runtime, final MemoryRegion region)
    {
        this.runtime = runtime;
        this.region = region;
    }

    /**
     * @return what kind of memory this is.
     */
    public MemoryType type()
    {
        return region.type();
    }

    /**
     * @return the device ordinal of device memory, -1 for host memory.
     */
    public int device()
    {
        return region.device();
    }

    /**
     * @return the address of the first byte: a device address for device memory, a host address for host memory.
     */
    public long address()
    {
        return region.startAddress();
    }

    /**
     * @return the address a kernel uses for the first byte (equal to {@link #address()} under unified addressing).
     */
    public long deviceAddress()
    {
        return region.deviceAddress();
    }

    /**
     * @return length of the allocation.
     */
    public long lengthBytes()
    {
        return region.lengthBytes();
    }

    /**
     * @return the range as the memory-type detection reports it.
     */
    public MemoryRegion region()
    {
        return region;
    }

    /**
     * @return true once freed.
     */
    public boolean isFreed()
    {
        return freed.get();
    }

    /**
     * Free the memory (unregister it, for registered host memory).
     *
     * @throws DeviceException on a second free.
     */
    public void free()
    {
        if (!freed.compareAndSet(false, true))
        {
            throw new DeviceException("double free of " + region);
        }
        runtime.release(this);
    }

    /**
     * Same as {@link #free()}.
     */
    @Override
    public void close()
    {
        free();
    }

    @Override
    public String toString()
    {
        return (isFreed() ? "freed " : "") + region;
    }
}
