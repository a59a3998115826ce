package io.stagecoach.device;

/**
 * A back end's ordered queue of device work. Arguments are validated by {@link DeviceStream} first.
 */
public interface BackendStream
{
    /**
     * Enqueue a copy. Addresses are host addresses for host memory and device addresses for device memory.
     *
     * @param dstAddress  destination.
     * @param srcAddress  source.
     * @param lengthBytes greater than zero.
     */
    void copy(long dstAddress, long srcAddress, long lengthBytes);

    /**
     * Enqueue a marker that completes the event once all work enqueued before it is done.
     *
     * @param event to record.
     */
    void record(BackendEvent event);

    /**
     * Make later work wait until the event's latest recording completed.
     *
     * @param event to wait for.
     */
    void waitFor(BackendEvent event);

    /**
     * Block the calling thread until all work enqueued so far is done. Never on an actor thread.
     */
    void synchronize();

    /**
     * Destroy the stream once its queued work is done.
     */
    void close();
}
