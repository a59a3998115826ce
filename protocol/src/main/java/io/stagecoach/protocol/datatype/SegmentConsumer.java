package io.stagecoach.protocol.datatype;

/**
 * Receives the flattened segments of a packed byte range, in packed order.
 */
@FunctionalInterface
public interface SegmentConsumer
{
    /**
     * @param displacementBytes address of the segment relative to the start of the typed buffer (signed).
     * @param packedOffsetBytes offset of the segment in the packed stream.
     * @param lengthBytes       length of the segment.
     */
    void accept(long displacementBytes, long packedOffsetBytes, long lengthBytes);
}
