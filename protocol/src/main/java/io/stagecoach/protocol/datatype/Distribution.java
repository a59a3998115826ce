package io.stagecoach.protocol.datatype;

/**
 * How one dimension of a distributed array is spread over a process grid dimension (MPI_DISTRIBUTE_*).
 */
public enum Distribution
{
    /**
     * Contiguous blocks of {@code darg} elements, one per process; the default block is
     * {@code ceil(gsize / psize)}.
     */
    BLOCK,

    /**
     * Blocks of {@code darg} elements dealt round-robin to the processes; the default block is 1.
     */
    CYCLIC,

    /**
     * The dimension is not distributed; its process grid size must be 1.
     */
    NONE
}
