package io.stagecoach.device;

/**
 * Another process' device memory opened in this one. Close it when done; the runtime keeps the driver mapping open
 * for reuse until the handle is invalidated or the runtime closes.
 */
public final class IpcMapping implements AutoCloseable
{
    private final IpcCache.Entry entry;
    private final IpcHandle handle;
    private final long address;
    private boolean closed;

    IpcMapping(final IpcCache.Entry entry, final IpcHandle handle, final long address)
    {
        this.entry = entry;
        this.handle = handle;
        this.address = address;
    }

    /**
     * @return the local address of the exported range's first byte.
     */
    public long address()
    {
        return address;
    }

    /**
     * @return length of the exported range.
     */
    public long lengthBytes()
    {
        return handle.lengthBytes();
    }

    /**
     * @return the handle this mapping was opened from.
     */
    public IpcHandle handle()
    {
        return handle;
    }

    /**
     * Release this use of the mapping.
     */
    @Override
    public synchronized void close()
    {
        if (closed)
        {
            throw new DeviceException("IPC mapping of " + handle + " closed twice");
        }
        closed = true;
        entry.release();
    }
}
