package io.stagecoach.device;

/**
 * Where an address lives, as unified virtual addressing tells it.
 */
public enum MemoryType
{
    /**
     * Ordinary pageable host memory: kernels cannot touch it, copies from it are staged by the driver.
     */
    HOST,

    /**
     * Page-locked host memory allocated by the runtime and mapped into the device address space, so a kernel can
     * read and write it directly.
     */
    PINNED_HOST,

    /**
     * Existing host memory (a shared-memory segment, a direct buffer) page-locked and mapped by registration.
     */
    REGISTERED_HOST,

    /**
     * Device memory of one device.
     */
    DEVICE;

    /**
     * @return true where a kernel running on a device may load from and store to this memory.
     */
    public boolean isDeviceAccessible()
    {
        return this != HOST;
    }
}
