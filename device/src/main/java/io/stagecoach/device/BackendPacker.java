package io.stagecoach.device;

/**
 * A back end's pack and unpack kernels for one datatype on one device. Addresses are device addresses (already
 * translated for mapped host memory) and all ranges are validated by {@link DevicePacker}.
 */
public interface BackendPacker
{
    /**
     * Enqueue the copy of packed bytes [packedOffset, packedOffset + lengthBytes) of {@code count} instances laid out at
     * {@code srcAddress} to {@code dstAddress}, in one launch.
     *
     * @param stream       to enqueue on.
     * @param srcAddress   the typed buffer.
     * @param count        instances of the datatype in the buffer.
     * @param packedOffset first byte of the packed stream to produce.
     * @param lengthBytes  bytes to produce, greater than zero.
     * @param dstAddress   where packed byte {@code packedOffset} goes.
     */
    void pack(BackendStream stream, long srcAddress, long count, long packedOffset, long lengthBytes, long dstAddress);

    /**
     * Enqueue the scatter of packed bytes [packedOffset, packedOffset + lengthBytes), read from {@code srcAddress}, into
     * the typed buffer at {@code dstAddress}, in one launch.
     *
     * @param stream       to enqueue on.
     * @param srcAddress   where packed byte {@code packedOffset} is.
     * @param count        instances of the datatype in the typed buffer.
     * @param packedOffset first byte of the packed stream consumed.
     * @param lengthBytes  bytes to consume, greater than zero.
     * @param dstAddress   the typed buffer.
     */
    void unpack(BackendStream stream, long srcAddress, long count, long packedOffset, long lengthBytes, long dstAddress);

    /**
     * {@link #pack(BackendStream, long, long, long, long, long)} followed by a recording of {@code completion}; a back
     * end may fuse the two, e.g. a kernel that signals its own completion.
     *
     * @param stream       to enqueue on.
     * @param srcAddress   the typed buffer.
     * @param count        instances of the datatype in the buffer.
     * @param packedOffset first byte of the packed stream to produce.
     * @param lengthBytes  bytes to produce, greater than zero.
     * @param dstAddress   where packed byte {@code packedOffset} goes.
     * @param completion   recorded once the pack is done.
     * @param hostMemory   true when either buffer is (mapped) host memory: writes must be visible system-wide.
     */
    default void pack(
        final BackendStream stream,
        final long srcAddress,
        final long count,
        final long packedOffset,
        final long lengthBytes,
        final long dstAddress,
        final BackendEvent completion,
        final boolean hostMemory)
    {
        pack(stream, srcAddress, count, packedOffset, lengthBytes, dstAddress);
        stream.record(completion);
    }

    /**
     * {@link #unpack(BackendStream, long, long, long, long, long)} followed by a recording of {@code completion}.
     *
     * @param stream       to enqueue on.
     * @param srcAddress   where packed byte {@code packedOffset} is.
     * @param count        instances of the datatype in the typed buffer.
     * @param packedOffset first byte of the packed stream consumed.
     * @param lengthBytes  bytes to consume, greater than zero.
     * @param dstAddress   the typed buffer.
     * @param completion   recorded once the unpack is done.
     * @param hostMemory   true when either buffer is (mapped) host memory: writes must be visible system-wide.
     */
    default void unpack(
        final BackendStream stream,
        final long srcAddress,
        final long count,
        final long packedOffset,
        final long lengthBytes,
        final long dstAddress,
        final BackendEvent completion,
        final boolean hostMemory)
    {
        unpack(stream, srcAddress, count, packedOffset, lengthBytes, dstAddress);
        stream.record(completion);
    }

    /**
     * Release argument buffers and cached launch state.
     */
    void close();
}
