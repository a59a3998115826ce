package io.stagecoach.rank;

/**
 * Where the rank actor hands work for the progress engine; lets the actor be tested without an engine.
 */
interface CommandSink
{
    /**
     * @return the rank the engine serves.
     */
    int rank();

    /**
     * Hands work to the engine, run in order with all other commands; never blocks.
     *
     * @param command the work.
     */
    void submit(EngineCommand command);
}
