package io.stagecoach.rank;

import io.stagecoach.pipeline.PackedHostBuffer;

/**
 * Device staging work of the engine. Messages up to the eager threshold are staged on the engine's thread
 * ({@link #packNow}, {@link #unpackNow}): a hand-off to another thread and back costs more than the device work.
 * Larger ones are handed to the rank actor ({@link #stageOut}, {@link #stageIn}), whose completion comes back as
 * an engine command.
 */
interface StagingRequests
{
    /**
     * Packs a device send buffer into host memory on the calling thread.
     *
     * @param send in state STAGING.
     * @return the packed bytes.
     */
    PackedHostBuffer packNow(SendOperation send);

    /**
     * Unpacks a received message from its host staging memory into the device buffer on the calling thread, and
     * releases the staging memory.
     *
     * @param receive with all its bytes in {@link ReceiveOperation#staging}.
     */
    void unpackNow(ReceiveOperation receive);

    /**
     * @param packedBytes size of a message bound for device memory.
     * @return host memory to receive it into.
     */
    PackedHostBuffer allocate(long packedBytes);

    /**
     * Pack a device send buffer into host memory, then submit {@link ProgressEngine#sendStaged}.
     *
     * @param send in state STAGING.
     */
    void stageOut(SendOperation send);

    /**
     * Unpack a received message from its host staging memory into the device buffer, then submit
     * {@link ProgressEngine#receiveStaged}.
     *
     * @param receive with all its bytes in {@link ReceiveOperation#staging}.
     */
    void stageIn(ReceiveOperation receive);
}
