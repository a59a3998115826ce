package io.stagecoach.rank.memory;

import io.stagecoach.device.MemoryRegion;
import io.stagecoach.device.MemoryType;

/**
 * A user buffer resolved once per request: where displacement 0 of the datatype lies, the memory range the data
 * must stay inside, and what kind of memory it is (the memory-type answer cached for the request's lifetime).
 */
public final class MessageBuffer
{
    private final long baseAddress;
    private final long lowAddress;
    private final long lengthBytes;
    private final MemoryRegion region;
    private final Object owner;

    public MessageBuffer(
        final long baseAddress,
        final long lowAddress,
        final long lengthBytes,
        final MemoryRegion region,
        final Object owner)
    {
        this.baseAddress = baseAddress;
        this.lowAddress = lowAddress;
        this.lengthBytes = lengthBytes;
        this.region = region;
        this.owner = owner;
    }

    public long baseAddress()
    {
        return baseAddress;
    }

    public long lowAddress()
    {
        return lowAddress;
    }

    public long lengthBytes()
    {
        return lengthBytes;
    }

    /**
     * @return the memory-type answer for the buffer.
     */
    MemoryRegion region()
    {
        return region;
    }

    public boolean isDevice()
    {
        return region.type() == MemoryType.DEVICE;
    }

    public int device()
    {
        return region.device();
    }

    /**
     * @return the object whose memory this is (a ByteBuffer, an allocation), kept reachable while in use.
     */
    Object owner()
    {
        return owner;
    }

    public String toString()
    {
        return region.type() + " buffer of " + lengthBytes + " bytes at 0x" + Long.toHexString(lowAddress);
    }
}
