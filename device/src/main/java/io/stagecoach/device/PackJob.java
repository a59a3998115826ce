package io.stagecoach.device;

/**
 * One pack or unpack of a {@link PackBatch}: a byte range of a datatype's packed stream, moved between a typed buffer
 * and a packed one, as {@link DevicePacker#pack} and {@link DevicePacker#unpack} take them.
 *
 * @param packer       the datatype's packer, of the batch's device.
 * @param pack         true to pack, false to unpack.
 * @param typedAddress the typed buffer.
 * @param count        instances of the datatype in it.
 * @param packedOffset first packed byte moved.
 * @param lengthBytes  packed bytes moved.
 * @param packedAddress where packed byte {@code packedOffset} lies.
 */
public record PackJob(
    DevicePacker packer, boolean pack, long typedAddress, long count, long packedOffset, long lengthBytes,
    long packedAddress)
{
    /**
     * @return a job packing [packedOffset, packedOffset + lengthBytes) of {@code count} instances at
     * {@code srcAddress} to {@code dstAddress}.
     */
    public static PackJob pack(
        final DevicePacker packer, final long srcAddress, final long count, final long packedOffset,
        final long lengthBytes, final long dstAddress)
    {
        return new PackJob(packer, true, srcAddress, count, packedOffset, lengthBytes, dstAddress);
    }

    /**
     * @return a job unpacking [packedOffset, packedOffset + lengthBytes), read from {@code srcAddress}, into
     * {@code count} instances at {@code dstAddress}.
     */
    public static PackJob unpack(
        final DevicePacker packer, final long srcAddress, final long count, final long packedOffset,
        final long lengthBytes, final long dstAddress)
    {
        return new PackJob(packer, false, dstAddress, count, packedOffset, lengthBytes, srcAddress);
    }
}
