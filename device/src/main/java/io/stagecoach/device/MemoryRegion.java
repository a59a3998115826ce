package io.stagecoach.device;

/**
 * One allocation range as the memory-type detection sees it.
 *
 * @param type          where the memory lives.
 * @param device        the device ordinal for device memory, -1 for host memory.
 * @param startAddress  first address of the allocation (host address for host memory).
 * @param lengthBytes   length of the allocation, 0 for pageable host memory of unknown extent.
 * @param deviceAddress the address a kernel uses for {@code startAddress}; equal to it under unified addressing.
 * @param owned         true when this runtime allocated or registered the range, false when it was discovered.
 */
public record MemoryRegion(
    MemoryType type, int device, long startAddress, long lengthBytes, long deviceAddress, boolean owned)
{
    /**
     * The answer for an address that belongs to no known allocation: pageable host memory.
     */
    public static final MemoryRegion PAGEABLE_HOST = new MemoryRegion(MemoryType.HOST, -1, 0, 0, 0, false);

    /**
     * @return one past the last address of the range.
     */
    public long endAddress()
    {
        return startAddress + lengthBytes;
    }

    /**
     * @param address to test.
     * @return true if the address lies inside the range.
     */
    public boolean contains(final long address)
    {
        return address - startAddress >= 0 && address - startAddress < lengthBytes;
    }

    /**
     * Translate an address inside the range to the address a kernel uses for it.
     *
     * @param address inside the range.
     * @return the device-visible address.
     */
    public long toDeviceAddress(final long address)
    {
        return deviceAddress + (address - startAddress);
    }

    @Override
    public String toString()
    {
        if (lengthBytes == 0)
        {
            return type.name();
        }
        return type + (device >= 0 ? " of device " + device : "") + " [0x" + Long.toHexString(startAddress) +
            ", 0x" + Long.toHexString(endAddress()) + ") of " + lengthBytes + " bytes";
    }
}
