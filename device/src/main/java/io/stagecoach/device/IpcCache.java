package io.stagecoach.device;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Opened IPC handles, one driver mapping per exported allocation, shared by every {@link IpcMapping} of it. A handle
 * for the same exporter address with another export number or other opaque bytes names a new allocation: the old
 * mapping is stale and is closed once unused. Unused mappings stay open for reuse, at most {@link #MAX_IDLE} of them,
 * until the exporter says it freed the allocation ({@link #invalidate(long, long, long)}).
 */
final class IpcCache
{
    static final int MAX_IDLE = 64;

    private record Key(DeviceKind kind, long processId, long allocationAddress)
    {
    }

    final class Entry
    {
        private final IpcHandle handle;
        private final long localBase;
        private final MemoryRegion region;
        private int references;
        private boolean stale;

        Entry(final IpcHandle handle, final long localBase, final MemoryRegion region)
        {
            this.handle = handle;
            this.localBase = localBase;
            this.region = region;
        }

        void release()
        {
            synchronized (IpcCache.this)
            {
                references--;
                if (references == 0 && stale)
                {
                    unmap(this);
                }
                trimIdle();
            }
        }
    }

    private final DeviceRuntime runtime;
    private final DeviceBackend backend;
    private final MemoryMap memoryMap;
    private final Map<Key, Entry> entries = new LinkedHashMap<>(16, 0.75f, true);

    IpcCache(final DeviceRuntime runtime, final DeviceBackend backend, final MemoryMap memoryMap)
    {
        this.runtime = runtime;
        this.backend = backend;
        this.memoryMap = memoryMap;
    }

    synchronized IpcMapping open(final IpcHandle handle)
    {
        if (handle.kind() != backend.kind())
        {
            throw new DeviceException(handle + " comes from a " + handle.kind() + " device, this runtime is " +
                backend.kind());
        }
        final Key key = new Key(handle.kind(), handle.processId(), handle.allocationAddress());
        Entry entry = entries.get(key);
        if (entry != null && !entry.handle.sameAllocation(handle))
        {
            retire(key, entry);
            entry = null;
        }
        if (entry == null)
        {
            entry = map(handle);
            entries.put(key, entry);
        }
        entry.references++;
        return new IpcMapping(entry, handle, entry.localBase + handle.offsetBytes());
    }

    /**
     * Retires the mapping of one export of a process, where it is the one mapped under its address.
     *
     * @return true when it was.
     */
    synchronized boolean invalidate(final long processId, final long allocationAddress, final long exportNumber)
    {
        final Key key = new Key(backend.kind(), processId, allocationAddress);
        final Entry entry = entries.get(key);
        if (entry == null || entry.handle.exportNumber() != exportNumber)
        {
            return false;
        }
        retire(key, entry);
        return true;
    }

    synchronized void invalidate(final IpcHandle handle)
    {
        final Key key = new Key(handle.kind(), handle.processId(), handle.allocationAddress());
        final Entry entry = entries.get(key);
        if (entry != null && entry.handle.sameAllocation(handle))
        {
            retire(key, entry);
        }
    }

    /**
     * Retires every mapping of a process's memory: unmapped now where unused, once its last use is closed otherwise.
     *
     * @return mappings retired.
     */
    synchronized int invalidateProcess(final long processId)
    {
        int retired = 0;
        final Iterator<Map.Entry<Key, Entry>> iterator = entries.entrySet().iterator();
        while (iterator.hasNext())
        {
            final Map.Entry<Key, Entry> next = iterator.next();
            if (next.getKey().processId() == processId)
            {
                iterator.remove();
                final Entry entry = next.getValue();
                if (entry.references == 0)
                {
                    unmap(entry);
                }
                else
                {
                    entry.stale = true;
                }
                retired++;
            }
        }
        return retired;
    }

    synchronized int openCount()
    {
        return entries.size();
    }

    synchronized void closeAll()
    {
        for (final Entry entry : entries.values())
        {
            unmap(entry);
        }
        entries.clear();
    }

    private Entry map(final IpcHandle handle)
    {
        if (handle.processId() == ProcessHandle.current().pid())
        {
            final MemoryRegion region = runtime.lookup(handle.allocationAddress());
            if (region.type() != MemoryType.DEVICE)
            {
                throw new DeviceException(handle + " refers to memory no longer allocated by its owner");
            }
            return new Entry(handle, handle.allocationAddress(), null);
        }
        final long base = backend.openIpc(handle.device(), handle.opaque());
        final MemoryRegion found = backend.query(base);
        final int device = found != null ? found.device() : Math.min(handle.device(), backend.deviceCount() - 1);
        final MemoryRegion region = new MemoryRegion(
            MemoryType.DEVICE, device, base, handle.allocationBytes(), base, true);
        memoryMap.add(region);
        return new Entry(handle, base, region);
    }

    private void retire(final Key key, final Entry entry)
    {
        entries.remove(key);
        if (entry.references == 0)
        {
            unmap(entry);
        }
        else
        {
            entry.stale = true;
        }
    }

    private void unmap(final Entry entry)
    {
        if (entry.region != null)
        {
            memoryMap.remove(entry.region, false);
            backend.closeIpc(entry.localBase);
        }
    }

    private void trimIdle()
    {
        final List<Entry> idle = new ArrayList<>();
        for (final Entry entry : entries.values())
        {
            if (entry.references == 0)
            {
                idle.add(entry);
            }
        }
        int excess = idle.size() - MAX_IDLE;
        final Iterator<Entry> iterator = entries.values().iterator();
        while (excess > 0 && iterator.hasNext())
        {
            final Entry entry = iterator.next();
            if (entry.references == 0)
            {
                iterator.remove();
                unmap(entry);
                excess--;
            }
        }
    }
}
