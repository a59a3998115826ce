package io.stagecoach.device.emulated;

/**
 * One entry of an emulated stream's queue.
 */
interface StreamOp
{
    /**
     * @return false to hold the stream; the op then arranges for the stream to be resumed.
     */
    default boolean ready()
    {
        return true;
    }

    /**
     * @param streamFailure the stream's first failure, or null; ops that move data skip when it is set.
     * @throws Exception when the op fails: the stream fails with it.
     */
    void run(Throwable streamFailure) throws Exception;
}
