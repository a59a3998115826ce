package io.stagecoach.device.pool;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.stagecoach.device.Allocation;
import io.stagecoach.device.DeviceException;
import io.stagecoach.device.DeviceRuntime;
import io.stagecoach.device.MemoryType;
import org.agrona.concurrent.ManyToManyConcurrentArrayQueue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A bounded pool of fixed-size staging buffers carved from one allocation made when the pool opens and freed when it
 * closes: vbufs (pinned, mapped host memory; one pool per process, shared by its ranks) and tbufs (device memory of
 * one device). When every slot is taken, {@link #tryAcquire()} answers null and {@link #acquire(long, TimeUnit)}
 * answers a future that completes, first come first served, when a slot is released, or fails with a
 * {@link PoolExhaustedException} once the timeout passes.
 */
public final class BufferPool implements AutoCloseable
{
    /**
     * Slots start at multiples of this, whatever their length.
     */
    public static final long SLOT_ALIGNMENT = 256;

    private static final Logger LOG = LoggerFactory.getLogger(BufferPool.class);

    private final String name;
    private final Allocation allocation;
    private final BufferSlot[] slots;
    private final long slotBytes;
    private final ManyToManyConcurrentArrayQueue<BufferSlot> free;
    private final ArrayDeque<CompletableFuture<BufferSlot>> waiters = new ArrayDeque<>();
    private final AtomicInteger waiting = new AtomicInteger();
    private final boolean ownsMemory;
    private volatile boolean closed;

    private BufferPool(final String name, final Allocation allocation, final int slotCount, final long slotBytes,
        final long strideBytes, final boolean ownsMemory)
    {
        this.name = name;
        this.allocation = allocation;
        this.ownsMemory = ownsMemory;
        this.slotBytes = slotBytes;
        this.slots = new BufferSlot[slotCount];
        this.free = new ManyToManyConcurrentArrayQueue<>(Math.max(2, slotCount));
        for (int i = 0; i < slotCount; i++)
        {
            slots[i] = new BufferSlot(this, i, allocation.address() + i * strideBytes,
                allocation.deviceAddress() + i * strideBytes, slotBytes);
            free.offer(slots[i]);
        }
    }

    /**
     * Open the process' vbuf pool: pinned host memory mapped for the devices.
     *
     * @param runtime   to allocate from.
     * @param slotCount number of slots.
     * @param slotBytes capacity of each slot.
     * @return the pool.
     */
    public static BufferPool openVbufs(final DeviceRuntime runtime, final int slotCount, final long slotBytes)
    {
        final long stride = stride(slotCount, slotBytes);
        return new BufferPool("vbuf pool", runtime.allocatePinned(stride * slotCount), slotCount, slotBytes, stride,
            true);
    }

    /**
     * Carve a pool out of memory the caller allocated or registered (for example host memory other processes map,
     * registered with the device); the memory stays the caller's, and closing the pool does not free it.
     *
     * @param name       for errors.
     * @param memory     where the slots lie, long enough for {@code slotCount} slots of {@code slotBytes}, each
     *                   starting on a {@link #SLOT_ALIGNMENT} boundary.
     * @param slotCount  number of slots.
     * @param slotBytes  capacity of each slot.
     * @return the pool.
     * @throws IllegalArgumentException when the memory is too short, naming both lengths.
     */
    public static BufferPool carve(
        final String name, final Allocation memory, final int slotCount, final long slotBytes)
    {
        final long stride = stride(slotCount, slotBytes);
        if (stride * slotCount > memory.lengthBytes())
        {
            throw new IllegalArgumentException(name + ": " + slotCount + " slots of " + slotBytes + " bytes need " +
                stride * slotCount + " bytes, the memory holds " + memory.lengthBytes());
        }
        return new BufferPool(name, memory, slotCount, slotBytes, stride, false);
    }

    /**
     * Open a tbuf pool in memory of the runtime's {@link DeviceRuntime#defaultDevice()}.
     *
     * @param runtime   to allocate from.
     * @param slotCount number of slots.
     * @param slotBytes capacity of each slot.
     * @return the pool.
     */
    public static BufferPool openTbufs(final DeviceRuntime runtime, final int slotCount, final long slotBytes)
    {
        return openTbufs(runtime, runtime.defaultDevice(), slotCount, slotBytes);
    }

    /**
     * Open a tbuf pool: device memory of one device.
     *
     * @param runtime   to allocate from.
     * @param device    ordinal.
     * @param slotCount number of slots.
     * @param slotBytes capacity of each slot.
     * @return the pool.
     */
    public static BufferPool openTbufs(
        final DeviceRuntime runtime, final int device, final int slotCount, final long slotBytes)
    {
        final long stride = stride(slotCount, slotBytes);
        return new BufferPool("tbuf pool of device " + device, runtime.allocate(device, stride * slotCount), slotCount,
            slotBytes, stride, true);
    }

    /**
     * @return a readable name, used in errors.
     */
    public String name()
    {
        return name;
    }

    /**
     * @return where the slots live.
     */
    public MemoryType memoryType()
    {
        return allocation.type();
    }

    /**
     * @return number of slots.
     */
    public int slotCount()
    {
        return slots.length;
    }

    /**
     * @return capacity of each slot.
     */
    public long slotBytes()
    {
        return slotBytes;
    }

    /**
     * @return slots free right now.
     */
    public int available()
    {
        return free.size();
    }

    /**
     * @return the allocation the slots are carved from.
     */
    public Allocation allocation()
    {
        return allocation;
    }

    /**
     * Take a slot without waiting.
     *
     * @return a slot, or null when all are taken (or others already wait for one).
     */
    public BufferSlot tryAcquire()
    {
        ensureOpen();
        if (waiting.get() > 0)
        {
            return null;
        }
        final BufferSlot slot = free.poll();
        if (slot != null)
        {
            slot.markAcquired();
        }
        return slot;
    }

    /**
     * Take a slot, waiting without bound for one to be released.
     *
     * @return a future completed with the slot.
     */
    public CompletableFuture<BufferSlot> acquire()
    {
        return acquire(0, TimeUnit.NANOSECONDS);
    }

    /**
     * Take a slot, waiting at most the timeout for one to be released.
     *
     * @param timeout how long to wait; 0 waits without bound.
     * @param unit    of the timeout.
     * @return a future completed with the slot, or failed with {@link PoolExhaustedException}.
     */
    public CompletableFuture<BufferSlot> acquire(final long timeout, final TimeUnit unit)
    {
        final BufferSlot slot = tryAcquire();
        if (slot != null)
        {
            return CompletableFuture.completedFuture(slot);
        }
        final CompletableFuture<BufferSlot> waiter = new CompletableFuture<>();
        synchronized (waiters)
        {
            waiters.addLast(waiter);
            waiting.incrementAndGet();
        }
        if (timeout > 0)
        {
            CompletableFuture.delayedExecutor(timeout, unit).execute(() -> expire(waiter, timeout, unit));
        }
        serveWaiters();
        return waiter;
    }

    /**
     * Give a slot back; the longest waiter, if any, gets it.
     *
     * @param slot acquired from this pool.
     */
    public void release(final BufferSlot slot)
    {
        if (slot.pool() != this)
        {
            throw new IllegalArgumentException(slot + " does not belong to " + name);
        }
        slot.markReleased();
        if (closed)
        {
            return;
        }
        free.offer(slot);
        if (waiting.get() > 0)
        {
            serveWaiters();
        }
    }

    /**
     * Fail the waiters and free the memory. Slots still acquired become invalid.
     */
    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        final List<CompletableFuture<BufferSlot>> failed;
        synchronized (waiters)
        {
            failed = new ArrayList<>(waiters);
            waiters.clear();
            waiting.set(0);
        }
        failed.forEach(waiter -> waiter.completeExceptionally(new DeviceException(name + " closed")));
        int inUse = 0;
        for (final BufferSlot slot : slots)
        {
            inUse += slot.isInUse() ? 1 : 0;
        }
        if (inUse > 0)
        {
            LOG.warn("{} closed with {} slot(s) still acquired", name, inUse);
        }
        if (ownsMemory)
        {
            allocation.free();
        }
    }

    private void serveWaiters()
    {
        final List<CompletableFuture<BufferSlot>> served = new ArrayList<>();
        final List<BufferSlot> handed = new ArrayList<>();
        synchronized (waiters)
        {
            while (!waiters.isEmpty())
            {
                final CompletableFuture<BufferSlot> waiter = waiters.peekFirst();
                if (waiter.isDone())
                {
                    waiters.pollFirst();
                    waiting.decrementAndGet();
                    continue;
                }
                final BufferSlot slot = free.poll();
                if (slot == null)
                {
                    break;
                }
                waiters.pollFirst();
                waiting.decrementAndGet();
                slot.markAcquired();
                served.add(waiter);
                handed.add(slot);
            }
        }
        for (int i = 0; i < served.size(); i++)
        {
            if (!served.get(i).complete(handed.get(i)))
            {
                release(handed.get(i));
            }
        }
    }

    private void expire(final CompletableFuture<BufferSlot> waiter, final long timeout, final TimeUnit unit)
    {
        final boolean removed;
        synchronized (waiters)
        {
            removed = waiters.remove(waiter);
            if (removed)
            {
                waiting.decrementAndGet();
            }
        }
        if (removed)
        {
            waiter.completeExceptionally(new PoolExhaustedException(name + ": all " + slots.length + " slots of " +
                slotBytes + " bytes stayed in use for " + unit.toMillis(timeout) + " ms (" + waiting.get() +
                " other waiter(s))"));
        }
    }

    private void ensureOpen()
    {
        if (closed)
        {
            throw new DeviceException(name + " used after close");
        }
    }

    private static long stride(final int slotCount, final long slotBytes)
    {
        if (slotCount < 1)
        {
            throw new IllegalArgumentException("slot count " + slotCount + " must be positive");
        }
        if (slotBytes < 1)
        {
            throw new IllegalArgumentException("slot length " + slotBytes + " must be positive");
        }
        return (slotBytes + SLOT_ALIGNMENT - 1) & -SLOT_ALIGNMENT;
    }
}
