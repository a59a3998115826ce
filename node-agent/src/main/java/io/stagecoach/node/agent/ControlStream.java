package io.stagecoach.node.agent;

/**
 * The answer to a control request that takes more than one line or comes later: lines sent from any thread, in
 * order, until {@link #close()}. The client's going away is told to the handler given to {@link #onClientGone}.
 */
public interface ControlStream
{
    /**
     * Queues one line for the client; nothing once the stream is closed.
     *
     * @param line without a line end (line ends in it are replaced by spaces).
     */
    void send(String line);

    /**
     * Sends what is queued, then closes the connection.
     */
    void close();

    /**
     * @param handler run once, on the control socket's thread, when the client closes the connection or it breaks
     *                before {@link #close()}; at once, on the calling thread, where the client went away before the
     *                handler was given.
     */
    void onClientGone(Runnable handler);
}
