package io.stagecoach.rank.memory;

import io.stagecoach.pipeline.PackedHostBuffer;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class HostBufferPoolTest
{
    @Test
    void shouldReuseAReleasedBufferOfTheSameSizeClass()
    {
        final HostBufferPool pool = new HostBufferPool();
        final PackedHostBuffer first = pool.acquire(100_000);
        final PackedHostBuffer second = pool.acquire(120_000);
        assertNotEquals(first.address(), second.address());
        final long firstAddress = first.address();
        first.release();
        assertEquals(128 * 1024, pool.retainedBytes());
        final PackedHostBuffer again = pool.acquire(131_072);
        assertEquals(firstAddress, again.address());
        assertEquals(131_072, again.capacityBytes());
        assertEquals(0, pool.retainedBytes());
        final PackedHostBuffer larger = pool.acquire(131_073);
        assertNotEquals(second.address(), larger.address());
    }

    @Test
    void shouldKeepNoMoreThanItsRetainedLimit()
    {
        final HostBufferPool pool = new HostBufferPool();
        final PackedHostBuffer[] buffers = new PackedHostBuffer[5];
        for (int i = 0; i < buffers.length; i++)
        {
            buffers[i] = pool.acquire(16L * 1024 * 1024);
        }
        for (final PackedHostBuffer buffer : buffers)
        {
            buffer.release();
        }
        assertEquals(HostBufferPool.MAX_RETAINED_BYTES, pool.retainedBytes());
    }

    @Test
    void shouldRejectASizeOutsideItsRange()
    {
        final HostBufferPool pool = new HostBufferPool();
        final IllegalArgumentException error = assertThrows(IllegalArgumentException.class,
            () -> pool.acquire(HostBufferPool.MAX_BUFFER_BYTES + 1));
        assertTrue(error.getMessage().contains(String.valueOf(HostBufferPool.MAX_BUFFER_BYTES)), error.getMessage());
        assertThrows(IllegalArgumentException.class, () -> pool.acquire(-1));
    }
}
