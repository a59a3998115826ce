package io.stagecoach.device;

/**
 * A back end's event: a marker in a stream that completes when the work before it is done.
 */
public interface BackendEvent
{
    /**
     * Non-blocking query.
     *
     * @return true when the latest recording completed (or the event was never recorded).
     * @throws DeviceException when the work before the marker failed.
     */
    boolean poll();

    /**
     * Block until the latest recording completed. Never on an actor thread.
     */
    void synchronize();

    /**
     * Destroy the event.
     */
    void close();
}
