package io.stagecoach.rank.engine;

import io.stagecoach.rank.Request;

/**
 * Work handed to the progress engine by another thread (a user thread posting a request, the rank actor reporting
 * a staged buffer or a dead peer); executed in order, by whichever thread holds the engine's progress lock.
 */
@FunctionalInterface
public interface EngineCommand
{
    /**
     * @param engine the engine, locked by the calling thread.
     */
    void execute(ProgressEngine engine);

    /**
     * The request this command serves, failed with what {@link #execute} threw, if it has one.
     *
     * @return the request, or null for commands that serve none.
     */
    default Request request()
    {
        return null;
    }
}
