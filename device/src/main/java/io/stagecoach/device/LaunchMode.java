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
    DIRECT;

    /**
     * Parse a configuration value such as {@code graph} or {@code direct}.
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
        throw new IllegalArgumentException("unknown launch mode '" + value + "', expected graph or direct");
    }
}
