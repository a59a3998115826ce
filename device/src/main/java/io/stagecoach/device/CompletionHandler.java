package io.stagecoach.device;

/**
 * Told by the completion agent when the work before an event's recording is done. Runs on the agent's thread: hand
 * the fact on (an actor message, a future) and return; never block.
 */
@FunctionalInterface
public interface CompletionHandler
{
    /**
     * @param event the completed event, free to be recorded again.
     * @param token the value given when the completion was asked for, e.g. a chunk number.
     * @param error null on success, otherwise why the work failed.
     */
    void onComplete(DeviceEvent event, long token, Throwable error);
}
