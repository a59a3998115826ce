package io.stagecoach.device;

/**
 * A back end's copy between two datatypes' layouts on one device: a byte range of the packed stream read out of the
 * source's layout and written into the destination's, in one launch, without the packed bytes in between. Addresses
 * are device addresses (already translated for mapped host memory) and all ranges are validated by
 * {@link DeviceTranscoder}.
 */
public interface BackendTranscoder
{
    /**
     * Enqueue the copy of packed bytes [packedOffset, packedOffset + lengthBytes) of {@code srcCount} instances of the
     * source's datatype at {@code srcAddress} into the same packed bytes of {@code dstCount} instances of the
     * destination's datatype at {@code dstAddress}.
     *
     * @param stream       to enqueue on.
     * @param srcAddress   the source's typed buffer.
     * @param srcCount     instances in it.
     * @param dstAddress   the destination's typed buffer.
     * @param dstCount     instances in it.
     * @param packedOffset first byte of the packed stream moved.
     * @param lengthBytes  bytes moved, greater than zero.
     */
    void transcode(BackendStream stream, long srcAddress, long srcCount, long dstAddress, long dstCount,
        long packedOffset, long lengthBytes);

    /**
     * {@link #transcode(BackendStream, long, long, long, long, long, long)} followed by a recording of
     * {@code completion}; a back end may fuse the two, e.g. a kernel that signals its own completion.
     *
     * @param stream       to enqueue on.
     * @param srcAddress   the source's typed buffer.
     * @param srcCount     instances in it.
     * @param dstAddress   the destination's typed buffer.
     * @param dstCount     instances in it.
     * @param packedOffset first byte of the packed stream moved.
     * @param lengthBytes  bytes moved, greater than zero.
     * @param completion   recorded once the copy is done.
     * @param hostMemory   true when either buffer is (mapped) host memory: writes must be visible system-wide.
     */
    default void transcode(
        final BackendStream stream,
        final long srcAddress,
        final long srcCount,
        final long dstAddress,
        final long dstCount,
        final long packedOffset,
        final long lengthBytes,
        final BackendEvent completion,
        final boolean hostMemory)
    {
        transcode(stream, srcAddress, srcCount, dstAddress, dstCount, packedOffset, lengthBytes);
        stream.record(completion);
    }

    /**
     * Release cached launch state (not the packers' node code, which their packers own).
     */
    void close();
}
