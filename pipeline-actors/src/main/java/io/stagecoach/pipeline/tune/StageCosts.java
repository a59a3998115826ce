package io.stagecoach.pipeline.tune;

/**
 * What one chunk costs in each stage of the pipeline, as a fixed part and a part per byte (the model of section IV
 * of "GPU-Aware MPI on RDMA-Enabled Clusters": {@code t(C) = a + C / b}): the device's pack into pinned host memory
 * (PACK and D2H in one pass), the wire, and the unpack out of pinned host memory (H2D and UNPACK).
 *
 * @param packFixedNs      fixed cost of a chunk's pack, ns.
 * @param packBytesPerNs   pack throughput, bytes per ns (GB/s).
 * @param wireFixedNs      fixed cost of a chunk on the wire, ns.
 * @param wireBytesPerNs   wire throughput, bytes per ns; {@link Double#POSITIVE_INFINITY} when no byte is copied.
 * @param unpackFixedNs    fixed cost of a chunk's unpack, ns.
 * @param unpackBytesPerNs unpack throughput, bytes per ns.
 */
public record StageCosts(
    double packFixedNs,
    double packBytesPerNs,
    double wireFixedNs,
    double wireBytesPerNs,
    double unpackFixedNs,
    double unpackBytesPerNs)
{
    /**
     * @param chunkBytes bytes of a chunk.
     * @return the time of its slowest stage, ns: the interval at which chunks leave a full pipeline.
     */
    public double slowestStageNs(final long chunkBytes)
    {
        return Math.max(packNs(chunkBytes), Math.max(wireNs(chunkBytes), unpackNs(chunkBytes)));
    }

    /**
     * @param chunkBytes bytes of a chunk.
     * @return the time of one chunk through every stage, ns: the pipeline's latency.
     */
    public double allStagesNs(final long chunkBytes)
    {
        return packNs(chunkBytes) + wireNs(chunkBytes) + unpackNs(chunkBytes);
    }

    double packNs(final long chunkBytes)
    {
        return packFixedNs + chunkBytes / packBytesPerNs;
    }

    double wireNs(final long chunkBytes)
    {
        return wireFixedNs + chunkBytes / wireBytesPerNs;
    }

    double unpackNs(final long chunkBytes)
    {
        return unpackFixedNs + chunkBytes / unpackBytesPerNs;
    }

    /**
     * @return the same costs with another wire.
     */
    public StageCosts withWire(final double fixedNs, final double bytesPerNs)
    {
        return new StageCosts(packFixedNs, packBytesPerNs, fixedNs, bytesPerNs, unpackFixedNs, unpackBytesPerNs);
    }
}
