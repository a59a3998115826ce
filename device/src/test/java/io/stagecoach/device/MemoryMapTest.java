package io.stagecoach.device;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

class MemoryMapTest
{
    @Test
    void shouldFindTheRegionHoldingAnAddress()
    {
        final MemoryMap map = new MemoryMap();
        final MemoryRegion a = region(0x1000, 0x100, true);
        final MemoryRegion b = region(0x3000, 0x1000, true);
        map.add(b);
        map.add(a);
        assertSame(a, map.find(0x1000));
        assertSame(a, map.find(0x10FF));
        assertNull(map.find(0x1100));
        assertNull(map.find(0xFFF));
        assertSame(b, map.find(0x3FFF));
        assertNull(map.find(0x4000));
    }

    @Test
    void shouldRefuseOverlappingOwnedRangesAndReplaceDiscoveredOnes()
    {
        final MemoryMap map = new MemoryMap();
        map.add(region(0x1000, 0x1000, true));
        assertThrows(DeviceException.class, () -> map.add(region(0x1800, 0x1000, true)));
        final MemoryRegion discovered = region(0x8000, 0x1000, false);
        map.add(discovered);
        final MemoryRegion owned = region(0x8800, 0x100, true);
        map.add(owned);
        assertNull(map.find(0x8000));
        assertSame(owned, map.find(0x8800));
        assertEquals(2, map.size());
    }

    @Test
    void shouldRememberFreedRangesUntilReused()
    {
        final MemoryMap map = new MemoryMap();
        final MemoryRegion freed = region(0x1000, 0x1000, true);
        map.add(freed);
        map.remove(freed, true);
        assertNull(map.find(0x1800));
        assertSame(freed, map.findFreed(0x1800));
        map.add(region(0x1800, 0x10, true));
        assertNull(map.findFreed(0x1000));
    }

    @Test
    void shouldForgetOnlyDiscoveredRanges()
    {
        final MemoryMap map = new MemoryMap();
        map.add(region(0x1000, 0x1000, true));
        map.add(region(0x5000, 0x1000, false));
        map.forget(0x1000);
        map.forget(0x5000);
        assertEquals(1, map.size());
    }

    private static MemoryRegion region(final long start, final long length, final boolean owned)
    {
        return new MemoryRegion(MemoryType.DEVICE, 0, start, length, start, owned);
    }
}
