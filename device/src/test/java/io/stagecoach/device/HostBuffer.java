package io.stagecoach.device;

import java.nio.ByteBuffer;

import org.agrona.BufferUtil;

/**
 * A page-aligned direct buffer and its address, for host-side references in tests.
 */
public final class HostBuffer
{
    private final ByteBuffer buffer;
    private final long address;

    /**
     * @param lengthBytes capacity.
     */
    public HostBuffer(final int lengthBytes)
    {
        buffer = BufferUtil.allocateDirectAligned(Math.max(4096, (lengthBytes + 4095) & ~4095), 4096);
        address = BufferUtil.address(buffer);
    }

    /**
     * @return address of byte 0.
     */
    public long address()
    {
        return address;
    }

    /**
     * @return the buffer.
     */
    public ByteBuffer buffer()
    {
        return buffer;
    }

    /**
     * @param bytes copied in at offset 0.
     */
    public void put(final byte[] bytes)
    {
        buffer.clear();
        buffer.put(bytes);
        buffer.clear();
    }

    /**
     * @param lengthBytes how many bytes from offset 0.
     * @return a copy.
     */
    public byte[] get(final int lengthBytes)
    {
        final byte[] bytes = new byte[lengthBytes];
        buffer.clear();
        buffer.get(bytes);
        buffer.clear();
        return bytes;
    }

    /**
     * @param value   to fill with.
     * @param lengthBytes from offset 0.
     */
    public void fill(final byte value, final int lengthBytes)
    {
        for (int i = 0; i < lengthBytes; i++)
        {
            buffer.put(i, value);
        }
    }
}
