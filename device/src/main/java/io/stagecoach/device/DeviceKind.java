package io.stagecoach.device;

/**
 * The back ends behind the device SPI.
 */
public enum DeviceKind
{
    /**
     * NVIDIA GPUs through the CUDA driver API (JCuda).
     */
    CUDA,

    /**
     * An emulated device: device memory is off-heap host memory, streams are ordered queues run by worker threads.
     */
    EMULATED;

    /**
     * Parse a configuration value such as {@code cuda} or {@code emulated}.
     *
     * @param value the configured name, case-insensitive.
     * @return the kind.
     */
    public static DeviceKind parse(final String value)
    {
        for (final DeviceKind kind : values())
        {
            if (kind.name().equalsIgnoreCase(value.trim()))
            {
                return kind;
            }
        }
        throw new IllegalArgumentException("unknown device kind '" + value + "', expected cuda or emulated");
    }
}
