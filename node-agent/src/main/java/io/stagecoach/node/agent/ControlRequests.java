package io.stagecoach.node.agent;

/**
 * What answers the requests of the control socket: one line in, one line out.
 */
@FunctionalInterface
public interface ControlRequests
{
    /**
     * @param request the request line, without its line end.
     * @return the answer, one line without a line end: JSON, or text starting with {@code error: }.
     */
    String answer(String request);
}
