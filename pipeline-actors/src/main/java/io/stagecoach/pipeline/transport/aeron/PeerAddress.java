package io.stagecoach.pipeline.transport.aeron;

import java.util.Objects;

/**
 * Where a rank can be reached: the node it runs on, and the UDP endpoint its inbox listens on for ranks of
 * other nodes. Ranks of the same node reach each other over Aeron IPC and never use the endpoint.
 *
 * @param node        name of the node the rank runs on; ranks with equal names share a media driver.
 * @param udpEndpoint {@code host:port} of the rank's UDP inbox, or null when no rank of another node talks to it.
 */
public record PeerAddress(String node, String udpEndpoint)
{
    /**
     * @param node        name of the node.
     * @param udpEndpoint {@code host:port}, or null.
     */
    public PeerAddress
    {
        Objects.requireNonNull(node, "node");
    }

    /**
     * @param node name of the node.
     * @return an address for a rank that only talks over IPC.
     */
    public static PeerAddress local(final String node)
    {
        return new PeerAddress(node, null);
    }
}
