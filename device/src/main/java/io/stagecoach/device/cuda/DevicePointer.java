package io.stagecoach.device.cuda;

import jcuda.driver.CUdeviceptr;

/**
 * A {@link CUdeviceptr} made from, or read back as, a raw address.
 */
final class DevicePointer extends CUdeviceptr
{
    private static final CUdeviceptr NULL = new CUdeviceptr();

    DevicePointer()
    {
    }

    DevicePointer(final long address)
    {
        super(NULL, address);
    }

    long address()
    {
        return getNativePointer() + getByteOffset();
    }
}
