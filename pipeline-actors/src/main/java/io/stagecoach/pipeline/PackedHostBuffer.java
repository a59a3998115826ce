package io.stagecoach.pipeline;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Host memory that holds the packed bytes of one message on their way between device memory and the wire. The
 * transport reads from it or writes into it at packed offsets; {@link #release()} hands it back to whoever
 * provided it, exactly once.
 */
public final class PackedHostBuffer
{
    private final long address;
    private final long capacityBytes;
    private final Runnable releaser;
    private final AtomicBoolean released = new AtomicBoolean();

    /**
     * @param address       of the first byte.
     * @param capacityBytes bytes it holds.
     * @param releaser      run once by {@link #release()}.
     */
    public PackedHostBuffer(final long address, final long capacityBytes, final Runnable releaser)
    {
        this.address = address;
        this.capacityBytes = capacityBytes;
        this.releaser = releaser;
    }

    /**
     * @return address of packed byte 0.
     */
    public long address()
    {
        return address;
    }

    /**
     * @return bytes it holds.
     */
    public long capacityBytes()
    {
        return capacityBytes;
    }

    /**
     * Gives the memory back; later calls do nothing.
     */
    public void release()
    {
        if (released.compareAndSet(false, true))
        {
            releaser.run();
        }
    }

    /**
     * @return true once released.
     */
    public boolean isReleased()
    {
        return released.get();
    }

    public String toString()
    {
        return "PackedHostBuffer{address=0x" + Long.toHexString(address) + ", capacity=" + capacityBytes +
            (isReleased() ? ", released" : "") + "}";
    }
}
