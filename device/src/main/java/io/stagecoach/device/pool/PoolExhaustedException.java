package io.stagecoach.device.pool;

import io.stagecoach.device.DeviceException;

/**
 * A bounded wait for a pool slot ran out: every slot stayed in use for the whole timeout.
 */
public final class PoolExhaustedException extends DeviceException
{
    private static final long serialVersionUID = 1L;

    /**
     * @param message naming the pool, its size and the timeout.
     */
    public PoolExhaustedException(final String message)
    {
        super(message);
    }
}
