package io.stagecoach.device.emulated;

import io.stagecoach.device.BackendStream;
import io.stagecoach.device.BackendTranscoder;
import io.stagecoach.protocol.datatype.CompiledType;

/**
 * The emulated copy kernel between two layouts: the datatype engine's host copy between them
 * ({@link CompiledType#transcode}, a cache-sized piece at a time), run in stream order by the stream's worker.
 */
final class EmulatedTranscoder implements BackendTranscoder
{
    private final CompiledType source;
    private final CompiledType destination;

    EmulatedTranscoder(final CompiledType source, final CompiledType destination)
    {
        this.source = source;
        this.destination = destination;
    }

    @Override
    public void transcode(
        final BackendStream stream,
        final long srcAddress,
        final long srcCount,
        final long dstAddress,
        final long dstCount,
        final long packedOffset,
        final long lengthBytes)
    {
        ((EmulatedStream)stream).enqueue(streamFailure ->
        {
            if (streamFailure == null)
            {
                source.transcode(srcAddress, srcCount, packedOffset, lengthBytes, destination, dstAddress, dstCount);
            }
        });
    }

    @Override
    public void close()
    {
    }
}
