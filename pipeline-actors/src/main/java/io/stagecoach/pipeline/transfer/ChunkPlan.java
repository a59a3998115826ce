package io.stagecoach.pipeline.transfer;

/**
 * How the packed stream of a transfer is cut into chunks: chunk k covers packed bytes
 * {@code [k * chunkBytes, min(packedBytes, (k + 1) * chunkBytes))}. A message of at most one chunk is the one-chunk
 * plan; an empty message has no chunk.
 */
public final class ChunkPlan
{
    private final long packedBytes;
    private final long chunkBytes;
    private final int chunks;

    private ChunkPlan(final long packedBytes, final long chunkBytes, final int chunks)
    {
        this.packedBytes = packedBytes;
        this.chunkBytes = chunkBytes;
        this.chunks = chunks;
    }

    /**
     * @param packedBytes bytes of the packed stream, at least 0.
     * @param chunkBytes  bytes of a chunk, at least 1 and at most {@link Integer#MAX_VALUE}.
     * @return the plan.
     * @throws IllegalArgumentException naming the value and its limits, also when the chunks would not fit an int.
     */
    public static ChunkPlan of(final long packedBytes, final long chunkBytes)
    {
        if (packedBytes < 0)
        {
            throw new IllegalArgumentException("packed bytes " + packedBytes + " is negative");
        }
        if (chunkBytes < 1 || chunkBytes > Integer.MAX_VALUE)
        {
            throw new IllegalArgumentException("chunk of " + chunkBytes + " bytes is outside [1, " +
                Integer.MAX_VALUE + "]");
        }
        final long chunks = (packedBytes + chunkBytes - 1) / chunkBytes;
        if (chunks > Integer.MAX_VALUE)
        {
            throw new IllegalArgumentException(packedBytes + " bytes in chunks of " + chunkBytes + " make " + chunks +
                " chunks, more than " + Integer.MAX_VALUE);
        }
        return new ChunkPlan(packedBytes, chunkBytes, (int)chunks);
    }

    /**
     * @return bytes of the packed stream.
     */
    public long packedBytes()
    {
        return packedBytes;
    }

    /**
     * @return bytes of every chunk but the last.
     */
    public long chunkBytes()
    {
        return chunkBytes;
    }

    /**
     * @return number of chunks.
     */
    public int chunks()
    {
        return chunks;
    }

    /**
     * @param chunk in [0, chunks).
     * @return its first packed byte.
     */
    public long offset(final int chunk)
    {
        return chunk * chunkBytes;
    }

    /**
     * @param chunk in [0, chunks).
     * @return its length in bytes.
     */
    public int length(final int chunk)
    {
        return (int)Math.min(chunkBytes, packedBytes - chunk * chunkBytes);
    }

    /**
     * @param packedOffset in [0, packedBytes).
     * @return the chunk that holds it.
     */
    public int chunkOf(final long packedOffset)
    {
        return (int)(packedOffset / chunkBytes);
    }

    public String toString()
    {
        return "ChunkPlan{" + packedBytes + " bytes in " + chunks + " chunks of " + chunkBytes + "}";
    }
}
