package io.stagecoach.rank;

import java.nio.ByteBuffer;

import io.stagecoach.device.Allocation;

/**
 * Where the data of a send or a receive lies, in one of the three forms the {@link Communicator} takes: a direct
 * {@link ByteBuffer} (displacement 0 of the datatype at its position, the data within [0, limit)), an
 * {@link Allocation} of the device layer (device, pinned or registered memory; displacement 0 at its first byte), or
 * raw memory given by its address and the bytes the data must stay within (host memory, or device memory that the
 * rank's device runtime knows). Whether it is host or device memory is found once per request.
 */
public sealed interface DataBuffer permits DataBuffer.Host, DataBuffer.Allocated, DataBuffer.Raw
{
    /**
     * @param buffer a direct buffer.
     * @return the buffer as a data buffer.
     */
    static DataBuffer of(final ByteBuffer buffer)
    {
        return new Host(buffer);
    }

    /**
     * @param allocation memory of the device layer, not freed.
     * @return the allocation as a data buffer.
     */
    static DataBuffer of(final Allocation allocation)
    {
        return new Allocated(allocation);
    }

    /**
     * @param address       displacement 0 of the datatype.
     * @param capacityBytes bytes from {@code address} the data must stay within.
     * @return the memory as a data buffer.
     */
    static DataBuffer of(final long address, final long capacityBytes)
    {
        return new Raw(address, capacityBytes);
    }

    /**
     * A direct buffer of host memory.
     *
     * @param buffer direct; displacement 0 at its position.
     */
    record Host(ByteBuffer buffer) implements DataBuffer
    {
    }

    /**
     * Memory of the device layer.
     *
     * @param allocation not freed; displacement 0 at its first byte.
     */
    record Allocated(Allocation allocation) implements DataBuffer
    {
    }

    /**
     * Raw memory.
     *
     * @param address       displacement 0 of the datatype.
     * @param capacityBytes bytes from {@code address} the data must stay within.
     */
    record Raw(long address, long capacityBytes) implements DataBuffer
    {
        public String toString()
        {
            return "Raw[address=0x" + Long.toHexString(address) + ", capacityBytes=" + capacityBytes + "]";
        }
    }
}
