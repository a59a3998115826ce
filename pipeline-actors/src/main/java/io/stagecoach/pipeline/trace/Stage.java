package io.stagecoach.pipeline.trace;

/**
 * The stages a chunk of a large device message passes through, in the order they run: a sender packs and copies to
 * host memory, the chunk crosses to the peer, and the receiver copies it to the device and unpacks it; and the one
 * stage of a message that a same-node receiver gets one-sided. The ordinal is the stage's number in the trace file
 * and the order of its tracks in a picture.
 */
public enum Stage
{
    /**
     * The device's pack kernel writes the chunk's range of the packed stream into device (or mapped pinned) memory.
     */
    PACK,
    /**
     * The packed chunk is copied from device memory to pinned host memory.
     */
    D2H,
    /**
     * The chunk crosses from the sender's host memory to the receiver's: from the offer (or the read of a same-node
     * peer) until the chunk is known to have arrived, as the rank that records it sees it.
     */
    WIRE,
    /**
     * The chunk is copied from pinned host memory to device memory on the receiver.
     */
    H2D,
    /**
     * The device's unpack kernel scatters the chunk into the receive buffer's layout.
     */
    UNPACK,
    /**
     * A same-node receiver gets a whole message out of the sender's memory on its device (one copy, or pack and
     * unpack kernels reading or writing the other side in place): from the enqueue of the device work until its
     * completion was seen. Not a stage of the stage pipeline's chunks.
     */
    GET;

    /**
     * Number of the stage pipeline's stages, {@link #PACK} to {@link #UNPACK}.
     */
    public static final int PIPELINE_COUNT = UNPACK.ordinal() + 1;

    private static final Stage[] STAGES = values();

    /**
     * Number of stages.
     */
    public static final int COUNT = STAGES.length;

    /**
     * @param ordinal a stage's {@link #ordinal()}.
     * @return the stage, without the copy that {@link #values()} makes.
     * @throws IllegalArgumentException when no stage has that number.
     */
    public static Stage of(final int ordinal)
    {
        if (ordinal < 0 || ordinal >= COUNT)
        {
            throw new IllegalArgumentException("stage " + ordinal + " is outside [0, " + COUNT + ")");
        }
        return STAGES[ordinal];
    }
}
