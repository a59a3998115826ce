package io.stagecoach.device;

/**
 * A failure of the device layer: a driver call that did not succeed, or a misuse of device memory (double free,
 * use after free, an address that belongs to no allocation, a copy out of range). The message names the call or the
 * value and the limit.
 */
public class DeviceException extends RuntimeException
{
    private static final long serialVersionUID = 1L;

    /**
     * @param message naming what failed.
     */
    public DeviceException(final String message)
    {
        super(message);
    }

    /**
     * @param message naming what failed.
     * @param cause   the underlying failure.
     */
    public DeviceException(final String message, final Throwable cause)
    {
        super(message, cause);
    }
}
