package io.stagecoach.device;

/**
 * The runtime's memory-type cache: every range it allocated or registered, every range the driver was asked about
 * once, and a bounded memory of ranges freed, so that a later use of a freed address is named as such.
 * Reads are lock-free over an immutable snapshot; writes (allocation, free, first sight of a foreign range) copy.
 */
final class MemoryMap
{
    private static final int FREED_RANGES_REMEMBERED = 1024;

    private final MemoryRegion[] freedRegions = new MemoryRegion[FREED_RANGES_REMEMBERED];
    private int freedCursor;
    private volatile RegionTable table = RegionTable.EMPTY;

    MemoryRegion find(final long address)
    {
        return table.find(address);
    }

    int size()
    {
        return table.size();
    }

    synchronized void add(final MemoryRegion region)
    {
        RegionTable current = table;
        MemoryRegion overlap;
        while ((overlap = current.findOverlap(region.startAddress(), region.lengthBytes())) != null)
        {
            if (overlap.owned() && region.owned())
            {
                throw new DeviceException(region + " overlaps " + overlap + " already known to this runtime");
            }
            current = current.without(overlap);
        }
        table = current.with(region);
        forgetFreed(region.startAddress(), region.lengthBytes());
    }

    synchronized void remove(final MemoryRegion region, final boolean rememberAsFreed)
    {
        table = table.without(region);
        if (rememberAsFreed)
        {
            freedRegions[freedCursor] = region;
            freedCursor = (freedCursor + 1) % FREED_RANGES_REMEMBERED;
        }
    }

    synchronized void forget(final long address)
    {
        final MemoryRegion region = table.find(address);
        if (region != null && !region.owned())
        {
            table = table.without(region);
        }
    }

    synchronized MemoryRegion findFreed(final long address)
    {
        for (int i = 0; i < FREED_RANGES_REMEMBERED; i++)
        {
            final MemoryRegion region = freedRegions[i];
            if (region != null && region.contains(address))
            {
                return region;
            }
        }
        return null;
    }

    synchronized void clearFreed(final long address)
    {
        for (int i = 0; i < FREED_RANGES_REMEMBERED; i++)
        {
            final MemoryRegion region = freedRegions[i];
            if (region != null && region.contains(address))
            {
                freedRegions[i] = null;
            }
        }
    }

    MemoryRegion[] snapshot()
    {
        return table.regions();
    }

    private void forgetFreed(final long start, final long lengthBytes)
    {
        for (int i = 0; i < FREED_RANGES_REMEMBERED; i++)
        {
            final MemoryRegion region = freedRegions[i];
            if (region != null && Long.compareUnsigned(region.startAddress(), start + lengthBytes) < 0 &&
                Long.compareUnsigned(start, region.endAddress()) < 0)
            {
                freedRegions[i] = null;
            }
        }
    }
}
