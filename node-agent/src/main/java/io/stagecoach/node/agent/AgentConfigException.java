package io.stagecoach.node.agent;

/**
 * An agent's configuration file that cannot be used: the message names the key, the value found and the limit.
 */
public final class AgentConfigException extends RuntimeException
{
    private static final long serialVersionUID = 1L;

    /**
     * @param key   the key, in full (e.g. {@code stagecoach.agent.bind.port}).
     * @param value the value found, or null where the key is missing.
     * @param limit what the value must be.
     */
    public AgentConfigException(final String key, final Object value, final String limit)
    {
        super(value == null ? key + " is missing: it must be " + limit :
            key + " = " + value + " is refused: it must be " + limit);
    }

    /**
     * @param message what is wrong with the file as a whole.
     * @param cause   the parser's error.
     */
    public AgentConfigException(final String message, final Throwable cause)
    {
        super(message, cause);
    }
}
