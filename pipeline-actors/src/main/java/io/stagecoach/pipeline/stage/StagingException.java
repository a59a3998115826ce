package io.stagecoach.pipeline.stage;

/**
 * Moving a message between device and host memory failed; the message names the buffer, the type and the device.
 */
public final class StagingException extends RuntimeException
{
    private static final long serialVersionUID = 1L;

    /**
     * @param message what failed.
     * @param cause   the device layer's error.
     */
    public StagingException(final String message, final Throwable cause)
    {
        super(message, cause);
    }
}
