package io.stagecoach.device.pool;

import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import io.stagecoach.device.DeviceContext;
import io.stagecoach.device.DeviceException;
import io.stagecoach.device.DeviceKind;
import io.stagecoach.device.DeviceRuntime;
import io.stagecoach.device.MemoryType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BufferPoolTest
{
    private static DeviceRuntime runtime;

    @BeforeAll
    static void open()
    {
        runtime = DeviceRuntime.open(new DeviceContext().kind(DeviceKind.EMULATED).emulatedMemoryBytes(256L << 20));
    }

    @AfterAll
    static void close()
    {
        runtime.close();
    }

    @Test
    void shouldCarveDistinctAlignedSlotsFromOneAllocation()
    {
        try (BufferPool pool = BufferPool.openVbufs(runtime, 8, 1000))
        {
            assertEquals(MemoryType.PINNED_HOST, pool.memoryType());
            final Set<Long> addresses = new HashSet<>();
            BufferSlot slot;
            while ((slot = pool.tryAcquire()) != null)
            {
                assertEquals(0, slot.address() % BufferPool.SLOT_ALIGNMENT);
                assertEquals(1000, slot.lengthBytes());
                assertTrue(slot.address() + slot.lengthBytes() <= pool.allocation().address() +
                    pool.allocation().lengthBytes());
                addresses.add(slot.address());
            }
            assertEquals(8, addresses.size());
            assertEquals(0, pool.available());
        }
    }

    @Test
    void shouldHandAReleasedSlotToTheLongestWaiter() throws Exception
    {
        try (BufferPool pool = BufferPool.openTbufs(runtime, 0, 2, 4096))
        {
            assertEquals(MemoryType.DEVICE, pool.memoryType());
            final BufferSlot first = pool.tryAcquire();
            final BufferSlot second = pool.tryAcquire();
            assertNull(pool.tryAcquire());
            final CompletableFuture<BufferSlot> early = pool.acquire(10, TimeUnit.SECONDS);
            final CompletableFuture<BufferSlot> late = pool.acquire(10, TimeUnit.SECONDS);
            assertFalse(early.isDone());
            assertNull(pool.tryAcquire(), "a waiter is first in line");
            second.release();
            assertSame(second, early.get(10, TimeUnit.SECONDS));
            assertFalse(late.isDone());
            first.release();
            assertSame(first, late.get(10, TimeUnit.SECONDS));
            early.get().release();
            late.get().release();
            assertEquals(2, pool.available());
        }
    }

    @Test
    void shouldFailAWaitThatOutlastsItsTimeoutNamingThePool() throws InterruptedException
    {
        try (BufferPool pool = BufferPool.openVbufs(runtime, 1, 64))
        {
            final BufferSlot only = pool.tryAcquire();
            assertNotNull(only);
            final CompletableFuture<BufferSlot> waiter = pool.acquire(50, TimeUnit.MILLISECONDS);
            final ExecutionException error = assertThrows(ExecutionException.class,
                () -> waiter.get(10, TimeUnit.SECONDS));
            assertInstanceOf(PoolExhaustedException.class, error.getCause());
            assertTrue(error.getCause().getMessage().contains("vbuf pool: all 1 slots of 64 bytes"),
                error.getCause().getMessage());
            assertTrue(error.getCause().getMessage().contains("50 ms"), error.getCause().getMessage());
            only.release();
            assertNotNull(pool.tryAcquire(), "the expired waiter must not hold the slot");
        }
    }

    @Test
    void shouldNameADoubleReleaseAndUseAfterClose()
    {
        final BufferPool pool = BufferPool.openVbufs(runtime, 2, 64);
        final BufferSlot slot = pool.tryAcquire();
        slot.release();
        assertThrows(DeviceException.class, slot::release);
        final CompletableFuture<BufferSlot> busy = pool.acquire();
        assertTrue(busy.isDone());
        pool.close();
        assertTrue(pool.allocation().isFreed());
        assertThrows(DeviceException.class, pool::tryAcquire);
    }

    @Test
    void shouldFailWaitersWhenClosed()
    {
        final BufferPool pool = BufferPool.openVbufs(runtime, 1, 64);
        pool.tryAcquire();
        final CompletableFuture<BufferSlot> waiter = pool.acquire();
        pool.close();
        assertTrue(waiter.isCompletedExceptionally());
    }
}
