package io.stagecoach.device;

/**
 * How the CUDA back end starts a pack or unpack call it has seen before (same datatype, buffers, count, range and
 * completion event); a call seen for the first time is always a plain kernel launch. The emulated back end ignores
 * the mode.
 */
public enum LaunchMode
{
    /**
     * A one-kernel CUDA graph, instantiated once and cached: one {@code cuGraphLaunch} per call. The default.
     */
    GRAPH,

    /**
     * A plain {@code cuLaunchKernel} with the call's arguments prepared once and cached beside it.
     */
    DIRECT,

    /**
     * A call with a completion event is handed to a pack kernel that stays resident on the GPU, one per stream, through
     * a word of mapped pinned host memory: no driver call at all. It takes the call only while its stream has no other
     * work queued and its previous call is done; any other call is a cached graph. The kernel holds one block of every
     * multiprocessor while the stream lives, and is stopped and restarted around driver calls that could wait for it
     * (allocations, frees, host registrations, IPC mappings). Opt-in: it costs GPU residency and PCIe polling traffic,
     * and CUDA calls made beside this runtime in the same process (another library freeing device memory) can wait
     * for it until the stream closes.
     */
    RESIDENT;

    /**
     * Parse a configuration value such as {@code graph}, {@code direct} or {@code resident}.
     *
     * @param value the configured name, case-insensitive.
     * @return the mode.
     */
    public static LaunchMode parse(final String value)
    {
        for (final LaunchMode mode : values())
        {
            if (mode.name().equalsIgnoreCase(value.trim()))
            {
                return mode;
            }
        }
        throw new IllegalArgumentException("unknown launch mode '" + value + "', expected graph, direct or resident");
    }
}
