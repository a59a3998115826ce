package io.stagecoach.device;

import java.util.Arrays;

/**
 * An immutable table of non-overlapping regions sorted by start address, searched without allocation.
 */
final class RegionTable
{
    static final RegionTable EMPTY = new RegionTable(new long[0], new MemoryRegion[0]);

    private final long[] starts;
    private final MemoryRegion[] regions;

    private RegionTable(final long[] starts, final MemoryRegion[] regions)
    {
        this.starts = starts;
        this.regions = regions;
    }

    int size()
    {
        return regions.length;
    }

    MemoryRegion find(final long address)
    {
        int low = 0;
        int high = starts.length - 1;
        while (low <= high)
        {
            final int mid = (low + high) >>> 1;
            if (Long.compareUnsigned(starts[mid], address) <= 0)
            {
                low = mid + 1;
            }
            else
            {
                high = mid - 1;
            }
        }
        if (high < 0)
        {
            return null;
        }
        final MemoryRegion region = regions[high];
        return region.contains(address) ? region : null;
    }

    MemoryRegion findOverlap(final long start, final long lengthBytes)
    {
        for (final MemoryRegion region : regions)
        {
            if (Long.compareUnsigned(region.startAddress(), start + lengthBytes) < 0 &&
                Long.compareUnsigned(start, region.endAddress()) < 0)
            {
                return region;
            }
        }
        return null;
    }

    RegionTable with(final MemoryRegion region)
    {
        int index = 0;
        while (index < starts.length && Long.compareUnsigned(starts[index], region.startAddress()) < 0)
        {
            index++;
        }
        final long[] newStarts = new long[starts.length + 1];
        final MemoryRegion[] newRegions = new MemoryRegion[regions.length + 1];
        System.arraycopy(starts, 0, newStarts, 0, index);
        System.arraycopy(regions, 0, newRegions, 0, index);
        newStarts[index] = region.startAddress();
        newRegions[index] = region;
        System.arraycopy(starts, index, newStarts, index + 1, starts.length - index);
        System.arraycopy(regions, index, newRegions, index + 1, regions.length - index);
        return new RegionTable(newStarts, newRegions);
    }

    RegionTable without(final MemoryRegion region)
    {
        final int index = Arrays.asList(regions).indexOf(region);
        if (index < 0)
        {
            return this;
        }
        final long[] newStarts = new long[starts.length - 1];
        final MemoryRegion[] newRegions = new MemoryRegion[regions.length - 1];
        System.arraycopy(starts, 0, newStarts, 0, index);
        System.arraycopy(regions, 0, newRegions, 0, index);
        System.arraycopy(starts, index + 1, newStarts, index, starts.length - index - 1);
        System.arraycopy(regions, index + 1, newRegions, index, regions.length - index - 1);
        return new RegionTable(newStarts, newRegions);
    }

    MemoryRegion[] regions()
    {
        return regions.clone();
    }
}
