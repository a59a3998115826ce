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
     * Release argument buffers and cached launch state.
     */
    void close();
}
