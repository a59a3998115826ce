package io.stagecoach.protocol.datatype;

import java.util.Arrays;

/**
 * Copies a byte range of the packed stream from one layout straight into another, without the packed bytes in
 * between: the source's segments over a batch of the range are kept in arrays, then merged with the destination's
 * segments over the same batch, each piece one copy. A batch spans {@link #BATCH_SEGMENTS} of the source's shortest
 * block, so that it holds at most that many segments and two cut at its ends. One instance serves one call.
 */
final class LayoutCopy
{
    static final int BATCH_SEGMENTS = 256;

    private final SegmentConsumer collector = this::collect;
    private final SegmentConsumer merger = this::merge;
    private long[] displacements = new long[BATCH_SEGMENTS + 2];
    private long[] packedOffsets = new long[BATCH_SEGMENTS + 2];
    private long[] lengths = new long[BATCH_SEGMENTS + 2];
    private int segments;
    private int cursor;
    private long sourceAddress;
    private long destinationAddress;

    private LayoutCopy()
    {
    }

    static void copy(
        final CompiledType from, final long srcAddress, final long count, final long packedOffset,
        final long lengthBytes, final CompiledType to, final long dstAddress, final long toCount)
    {
        final LayoutCopy copy = new LayoutCopy();
        copy.sourceAddress = srcAddress;
        copy.destinationAddress = dstAddress;
        final long blockBytes = Math.max(1, from.minBlockBytes());
        final long batchBytes = blockBytes > Long.MAX_VALUE / BATCH_SEGMENTS ? lengthBytes : blockBytes * BATCH_SEGMENTS;
        final long end = packedOffset + lengthBytes;
        for (long at = packedOffset; at < end; at += batchBytes)
        {
            final long batch = Math.min(batchBytes, end - at);
            copy.segments = 0;
            copy.cursor = 0;
            from.forEachSegment(count, at, batch, copy.collector);
            to.forEachSegment(toCount, at, batch, copy.merger);
        }
    }

    private void collect(final long displacement, final long packedOffset, final long length)
    {
        if (segments == lengths.length)
        {
            displacements = Arrays.copyOf(displacements, segments * 2);
            packedOffsets = Arrays.copyOf(packedOffsets, segments * 2);
            lengths = Arrays.copyOf(lengths, segments * 2);
        }
        displacements[segments] = displacement;
        packedOffsets[segments] = packedOffset;
        lengths[segments] = length;
        segments++;
    }

    private void merge(final long displacement, final long packedOffset, final long length)
    {
        long packed = packedOffset;
        long target = destinationAddress + displacement;
        final long end = packedOffset + length;
        while (packed < end)
        {
            final long sourceEnd = packedOffsets[cursor] + lengths[cursor];
            final long piece = Math.min(end, sourceEnd) - packed;
            Memory.copy(null, sourceAddress + displacements[cursor] + packed - packedOffsets[cursor], null, target,
                piece);
            packed += piece;
            target += piece;
            if (packed == sourceEnd)
            {
                cursor++;
            }
        }
    }
}
