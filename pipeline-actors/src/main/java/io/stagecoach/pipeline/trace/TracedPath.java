package io.stagecoach.pipeline.trace;

/**
 * The way a message's bytes went from one rank to another, as its transfer records say. The ordinal is the path's
 * number in a {@link TransferRecord}.
 */
public enum TracedPath
{
    /**
     * Sent whole in one message over the wire, within the eager threshold (a device buffer packed into pinned memory
     * on the engine's thread first).
     */
    EAGER,
    /**
     * Announced with an RTS, then streamed over the wire as DATA (host memory on both sides, or a peer whose memory
     * cannot be read).
     */
    RENDEZVOUS,
    /**
     * Through the stage pipeline in chunks: pack, device to host, wire, host to device, unpack.
     */
    STAGED,
    /**
     * Got one-sided by a same-node receiver out of the sender's device buffer over CUDA IPC.
     */
    CUDA_IPC,
    /**
     * Read by a same-node receiver out of the sender's host memory: its shared arena, or its process's memory.
     */
    SHARED_MEMORY;

    private static final TracedPath[] PATHS = values();

    /**
     * Number of paths.
     */
    public static final int COUNT = PATHS.length;

    /**
     * @param ordinal a path's {@link #ordinal()}.
     * @return the path, without the copy that {@link #values()} makes.
     * @throws IllegalArgumentException when no path has that number.
     */
    public static TracedPath of(final int ordinal)
    {
        if (ordinal < 0 || ordinal >= COUNT)
        {
            throw new IllegalArgumentException("transfer path " + ordinal + " is outside [0, " + COUNT + ")");
        }
        return PATHS[ordinal];
    }
}
