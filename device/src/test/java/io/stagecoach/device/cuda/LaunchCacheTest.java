package io.stagecoach.device.cuda;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

class LaunchCacheTest
{
    @Test
    void shouldFindALaunchByEveryPartOfItsKey()
    {
        final LaunchCache cache = new LaunchCache(64, launch -> { });
        final int pack = LaunchCache.PACK;
        final LaunchCache.Launch launch = new LaunchCache.Launch(pack, 100, 2, 200, 0, 0, 64, 0);
        cache.add(launch);
        assertSame(launch, cache.find(pack, 100, 2, 200, 0, 0, 64, 0));
        assertNull(cache.find(pack, 100, 2, 200, 0, 0, 64, 8));
        assertNull(cache.find(LaunchCache.UNPACK, 100, 2, 200, 0, 0, 64, 0));
        assertNull(cache.find(LaunchCache.COPY, 100, 2, 200, 0, 0, 64, 0));
        assertNull(cache.find(pack, 101, 2, 200, 0, 0, 64, 0));
        assertNull(cache.find(pack, 100, 3, 200, 0, 0, 64, 0));
        assertNull(cache.find(pack, 100, 2, 201, 0, 0, 64, 0));
        assertNull(cache.find(pack, 100, 2, 200, 1, 0, 64, 0));
        assertNull(cache.find(pack, 100, 2, 200, 0, 1, 64, 0));
        assertNull(cache.find(pack, 100, 2, 200, 0, 0, 65, 0));
    }

    @Test
    void shouldEvictAndReleaseWhenFullAndOnClear()
    {
        final List<LaunchCache.Launch> evicted = new ArrayList<>();
        final LaunchCache cache = new LaunchCache(16, evicted::add);
        for (int i = 0; i < 100; i++)
        {
            cache.add(new LaunchCache.Launch(LaunchCache.PACK, i, 1, 0, 0, 0, 8, 0));
        }
        assertEquals(100 - cache.capacity(), evicted.size());
        cache.clear();
        assertEquals(100, evicted.size());
        assertTrue(cache.capacity() >= 16);
    }
}
