package io.stagecoach.rank.engine;

/**
 * Where the rank actor hands work for the progress engine; lets the actor be tested without an engine.
 */
public interface CommandSink
{
    /**
     * @return the rank the engine serves.
     */
    int rank();

    /**
     * Hands work to the engine, run in order with all other commands; never blocks, but runs it on the calling thread
     * when the engine is free.
     *
     * @param command the work.
     */
    void submit(EngineCommand command);

    /**
     * Hands work to the engine's command queue only, for the thread that runs its duty cycle next, and wakes the
     * progress thread when no other thread drives the engine: what actor threads use, which never run the engine.
     *
     * @param command the work.
     */
    void enqueue(EngineCommand command);
}
