package io.stagecoach.node.launch;

/**
 * A job could not be launched: the program is not on the class path, a process or the media driver could not be
 * started. The message says what and why.
 */
public class LaunchException extends RuntimeException
{
    private static final long serialVersionUID = 1L;

    /**
     * @param message saying what could not be launched and why.
     */
    public LaunchException(final String message)
    {
        super(message);
    }

    /**
     * @param message saying what could not be launched and why.
     * @param cause   the underlying failure.
     */
    public LaunchException(final String message, final Throwable cause)
    {
        super(message, cause);
    }
}
