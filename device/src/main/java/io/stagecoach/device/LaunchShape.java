package io.stagecoach.device;

/**
 * The grid and block of a kernel launch, as {@code cuLaunchKernel} takes them: blocks in x, y and z, and threads per
 * block in x, y and z.
 *
 * @param gridX  blocks in x, in [1, 2^31 - 1].
 * @param gridY  blocks in y, in [1, 65535].
 * @param gridZ  blocks in z, in [1, 65535].
 * @param blockX threads per block in x.
 * @param blockY threads per block in y.
 * @param blockZ threads per block in z; the three multiply to at most {@link #MAX_BLOCK_THREADS}.
 */
public record LaunchShape(int gridX, int gridY, int gridZ, int blockX, int blockY, int blockZ)
{
    /**
     * Most threads in one block.
     */
    public static final int MAX_BLOCK_THREADS = 1024;

    private static final int MAX_GRID_YZ = 65_535;

    /**
     * @throws IllegalArgumentException naming the dimension, its value and its limit.
     */
    public LaunchShape
    {
        check("gridX", gridX, Integer.MAX_VALUE);
        check("gridY", gridY, MAX_GRID_YZ);
        check("gridZ", gridZ, MAX_GRID_YZ);
        check("blockX", blockX, MAX_BLOCK_THREADS);
        check("blockY", blockY, MAX_BLOCK_THREADS);
        check("blockZ", blockZ, MAX_BLOCK_THREADS);
        if ((long)blockX * blockY * blockZ > MAX_BLOCK_THREADS)
        {
            throw new IllegalArgumentException("block of " + blockX + " x " + blockY + " x " + blockZ +
                " threads exceeds " + MAX_BLOCK_THREADS);
        }
    }

    /**
     * One dimension: enough blocks of {@code blockThreads} for {@code threads} threads (the last block may have threads
     * to spare, which the kernel must leave idle).
     *
     * @param threads      at least one.
     * @param blockThreads threads per block, in [1, {@link #MAX_BLOCK_THREADS}].
     * @return the shape.
     */
    public static LaunchShape linear(final long threads, final int blockThreads)
    {
        if (threads < 1)
        {
            throw new IllegalArgumentException("launch of " + threads + " threads: at least one is needed");
        }
        check("blockX", blockThreads, MAX_BLOCK_THREADS);
        final long blocks = (threads + blockThreads - 1) / blockThreads;
        if (blocks > Integer.MAX_VALUE)
        {
            throw new IllegalArgumentException("launch of " + threads + " threads in blocks of " + blockThreads +
                " needs " + blocks + " blocks, more than " + Integer.MAX_VALUE);
        }
        return new LaunchShape((int)blocks, 1, 1, blockThreads, 1, 1);
    }

    /**
     * @return threads the launch starts.
     */
    public long threads()
    {
        return (long)gridX * gridY * gridZ * blockX * blockY * blockZ;
    }

    private static void check(final String name, final int value, final int limit)
    {
        if (value < 1 || value > limit)
        {
            throw new IllegalArgumentException(name + " " + value + " outside [1, " + limit + "]");
        }
    }
}
