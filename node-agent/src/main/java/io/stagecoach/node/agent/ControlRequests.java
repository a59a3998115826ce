package io.stagecoach.node.agent;

/**
 * What answers the requests of the control socket: one line in, one line out, or, for requests that stream, lines
 * until the answer closes the stream.
 */
@FunctionalInterface
public interface ControlRequests
{
    /**
     * @param request the request line, without its line end.
     * @return the answer, one line without a line end: JSON, or text starting with {@code error: }.
     */
    String answer(String request);

    /**
     * Takes a request whose answer streams, if it is one; called before {@link #answer(String)}. A streaming client
     * has no idle timeout and sends nothing more.
     *
     * @param request the request line, without its line end.
     * @param stream  where the answer goes.
     * @return true where the request was taken: the answer goes to the stream, which the taker closes; false where
     * {@link #answer(String)} answers it.
     */
    default boolean stream(final String request, final ControlStream stream)
    {
        return false;
    }
}
