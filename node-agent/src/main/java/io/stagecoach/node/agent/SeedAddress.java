package io.stagecoach.node.agent;

/**
 * The host and port of an agent that others join through, as the configuration writes it: {@code host:port}, or
 * {@code [v6-address]:port}.
 *
 * @param host name or address.
 * @param port Artery port.
 */
public record SeedAddress(String host, int port)
{
    /**
     * @param key  the key the text is read from, for the error.
     * @param text {@code host:port}.
     * @return the address.
     * @throws AgentConfigException when the text is no host and port.
     */
    public static SeedAddress parse(final String key, final String text)
    {
        final String limit = "host:port with a port in [1, 65535]";
        final int colon = text.lastIndexOf(':');
        if (colon <= 0 || colon == text.length() - 1)
        {
            throw new AgentConfigException(key, text, limit);
        }
        String host = text.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]"))
        {
            host = host.substring(1, host.length() - 1);
        }
        final int port;
        try
        {
            port = Integer.parseInt(text.substring(colon + 1));
        }
        catch (final NumberFormatException ex)
        {
            throw new AgentConfigException(key, text, limit);
        }
        if (host.isEmpty() || host.chars().anyMatch(Character::isWhitespace) || port < 1 || port > 65535)
        {
            throw new AgentConfigException(key, text, limit);
        }
        return new SeedAddress(host, port);
    }

    /**
     * @param systemName the actor system's name.
     * @return the Pekko address of the agent at this host and port.
     */
    public String pekkoAddress(final String systemName)
    {
        final String hostPart = host.indexOf(':') >= 0 ? "[" + host + "]" : host;
        return "pekko://" + systemName + "@" + hostPart + ":" + port;
    }

    @Override
    public String toString()
    {
        return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
    }
}
