package io.stagecoach.device.cuda;

import java.nio.ByteBuffer;

import jcuda.Pointer;
import org.agrona.BufferUtil;

/**
 * A {@link Pointer} to host memory made from, or read back as, a raw address.
 */
final class HostPointer extends Pointer
{
    HostPointer()
    {
    }

    HostPointer(final long address)
    {
        super(address);
    }

    long address()
    {
        final long address = getNativePointer() + getByteOffset();
        if (address != 0)
        {
            return address;
        }
        final ByteBuffer buffer = getByteBuffer();
        return buffer == null ? 0 : BufferUtil.address(buffer);
    }
}
