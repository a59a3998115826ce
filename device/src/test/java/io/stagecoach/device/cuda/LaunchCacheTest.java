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
        final LaunchCache.Launch launch = new LaunchCache.Launch(true, 100, 2, 0, 64, 200, 0);
        cache.add(launch);
        assertSame(launch, cache.find(true, 100, 2, 0, 64, 200, 0));
        assertNull(cache.find(true, 100, 2, 0, 64, 200, 8));
        assertNull(cache.find(false, 100, 2, 0, 64, 200, 0));
        assertNull(cache.find(true, 101, 2, 0, 64, 200, 0));
        assertNull(cache.find(true, 100, 3, 0, 64, 200, 0));
        assertNull(cache.find(true, 100, 2, 1, 64, 200, 0));
        assertNull(cache.find(true, 100, 2, 0, 65, 200, 0));
        assertNull(cache.find(true, 100, 2, 0, 64, 201, 0));
    }

    @Test
    void shouldEvictAndReleaseWhenFullAndOnClear()
    {
        final List<LaunchCache.Launch> evicted = new ArrayList<>();
        final LaunchCache cache = new LaunchCache(16, evicted::add);
        for (int i = 0; i < 100; i++)
        {
            cache.add(new LaunchCache.Launch(true, i, 1, 0, 8, 0, 0));
        }
        assertEquals(100 - cache.capacity(), evicted.size());
        cache.clear();
        assertEquals(100, evicted.size());
        assertTrue(cache.capacity() >= 16);
    }
}
