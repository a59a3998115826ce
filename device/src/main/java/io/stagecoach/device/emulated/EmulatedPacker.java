package io.stagecoach.device.emulated;

import io.stagecoach.device.BackendPacker;
import io.stagecoach.device.BackendStream;
import io.stagecoach.protocol.datatype.CompiledType;

/**
 * The emulated pack and unpack kernels: the datatype engine's host pack over the same compiled form, run in stream
 * order by the stream's worker.
 */
final class EmulatedPacker implements BackendPacker
{
    private final CompiledType type;

    EmulatedPacker(final CompiledType type)
    {
        this.type = type;
    }

    CompiledType type()
    {
        return type;
    }

    @Override
    public void pack(
        final BackendStream stream,
        final long srcAddress,
        final long count,
        final long packedOffset,
        final long lengthBytes,
        final long dstAddress)
    {
        ((EmulatedStream)stream).enqueue(streamFailure ->
        {
            if (streamFailure == null)
            {
                type.pack(srcAddress, count, packedOffset, lengthBytes, dstAddress);
            }
        });
    }

    @Override
    public void unpack(
        final BackendStream stream,
        final long srcAddress,
        final long count,
        final long packedOffset,
        final long lengthBytes,
        final long dstAddress)
    {
        ((EmulatedStream)stream).enqueue(streamFailure ->
        {
            if (streamFailure == null)
            {
                type.unpack(srcAddress, count, packedOffset, lengthBytes, dstAddress);
            }
        });
    }

    @Override
    public void close()
    {
    }
}
