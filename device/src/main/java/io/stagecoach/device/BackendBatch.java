package io.stagecoach.device;

/**
 * A back end's fixed set of pack and unpack moves, launched together: one launch for all of them (a CUDA graph of one
 * kernel node per move, which the GPU runs side by side), instead of a launch and a completion for each.
 */
public interface BackendBatch extends AutoCloseable
{
    /**
     * One move of a batch, its addresses already device addresses and its range checked.
     *
     * @param packer       the datatype's packer on the batch's device.
     * @param pack         true to pack (typed to packed), false to unpack.
     * @param typed        the typed buffer.
     * @param count        instances of the datatype in it.
     * @param packedOffset first packed byte moved.
     * @param lengthBytes  packed bytes moved, greater than zero.
     * @param packed       where packed byte {@code packedOffset} lies.
     */
    record Move(BackendPacker packer, boolean pack, long typed, long count, long packedOffset, long lengthBytes,
        long packed)
    {
    }

    /**
     * Enqueue every move of the batch on the stream.
     *
     * @param stream of the batch's device.
     */
    void launch(BackendStream stream);

    /**
     * Release what the batch holds (its instantiated graph).
     */
    void close();
}
