package io.stagecoach.pipeline.tune;

/**
 * Picks the chunk size of a transfer from the stage costs: a message of P bytes in chunks of C takes about
 * {@code T(C) = t_pack(C) + t_wire(C) + t_unpack(C) + (ceil(P / C) - 1) * max(t_pack(C), t_wire(C), t_unpack(C))}
 * (the first chunk through every stage, then one chunk per interval of the slowest stage). Small chunks start the
 * pipeline early but pay the fixed costs often; large ones pay them rarely but fill and drain it slowly. The sizes
 * tried are powers of two from {@link #MIN_CHUNK_BYTES} to the slots' size; ties go to the larger chunk.
 */
public final class ChunkModel
{
    /** The smallest chunk tried. */
    public static final long MIN_CHUNK_BYTES = 64 * 1024;

    private final StageCosts costs;
    private final long maxChunkBytes;

    /**
     * @param costs         of the stages.
     * @param maxChunkBytes the largest chunk: the pipeline's slot size.
     */
    public ChunkModel(final StageCosts costs, final long maxChunkBytes)
    {
        this.costs = costs;
        this.maxChunkBytes = maxChunkBytes;
    }

    /**
     * @return the costs the model uses.
     */
    public StageCosts costs()
    {
        return costs;
    }

    /**
     * @param packedBytes of a message, at least 1.
     * @return the chunk size that makes its transfer the shortest by the model.
     */
    public long chunkBytes(final long packedBytes)
    {
        long best = Math.min(maxChunkBytes, MIN_CHUNK_BYTES);
        double bestNs = transferNs(packedBytes, best);
        for (long chunk = best * 2; chunk <= maxChunkBytes; chunk *= 2)
        {
            final double ns = transferNs(packedBytes, chunk);
            if (ns <= bestNs)
            {
                best = chunk;
                bestNs = ns;
            }
            if (chunk >= packedBytes)
            {
                break;
            }
        }
        return best;
    }

    /**
     * @return the model's time of a message of {@code packedBytes} in chunks of {@code chunkBytes}, ns.
     */
    public double transferNs(final long packedBytes, final long chunkBytes)
    {
        final long chunks = (packedBytes + chunkBytes - 1) / chunkBytes;
        final long firstBytes = Math.min(chunkBytes, packedBytes);
        return costs.allStagesNs(firstBytes) + (chunks - 1) * costs.slowestStageNs(chunkBytes);
    }
}
