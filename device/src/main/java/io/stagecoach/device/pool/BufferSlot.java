package io.stagecoach.device.pool;

import java.util.concurrent.atomic.AtomicBoolean;

import io.stagecoach.device.DeviceException;

/**
 * One fixed-size slot of a {@link BufferPool}: a chunk's staging buffer. Release it exactly once.
 */
public final class BufferSlot
{
    private final BufferPool pool;
    private final int index;
    private final long address;
    private final long deviceAddress;
    private final long lengthBytes;
    private final AtomicBoolean inUse = new AtomicBoolean();

    BufferSlot(final BufferPool pool, final int index, final long address, final long deviceAddress,
        final long lengthBytes)
    {
        this.pool = pool;
        this.index = index;
        this.address = address;
        this.deviceAddress = deviceAddress;
        this.lengthBytes = lengthBytes;
    }

    /**
     * @return position of the slot in its pool.
     */
    public int index()
    {
        return index;
    }

    /**
     * @return address of the first byte (host address for vbufs, device address for tbufs).
     */
    public long address()
    {
        return address;
    }

    /**
     * @return the address kernels use for the first byte.
     */
    public long deviceAddress()
    {
        return deviceAddress;
    }

    /**
     * @return capacity of the slot.
     */
    public long lengthBytes()
    {
        return lengthBytes;
    }

    /**
     * @return the pool the slot belongs to.
     */
    public BufferPool pool()
    {
        return pool;
    }

    /**
     * Same as {@code pool().release(this)}.
     */
    public void release()
    {
        pool.release(this);
    }

    boolean isInUse()
    {
        return inUse.get();
    }

    void markAcquired()
    {
        inUse.set(true);
    }

    void markReleased()
    {
        if (!inUse.compareAndSet(true, false))
        {
            throw new DeviceException("slot " + index + " of " + pool.name() + " released while not acquired");
        }
    }

    @Override
    public String toString()
    {
        return pool.name() + " slot " + index + " at 0x" + Long.toHexString(address);
    }
}
