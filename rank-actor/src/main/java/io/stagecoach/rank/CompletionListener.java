package io.stagecoach.rank;

/**
 * Told once that a request completed, on the thread that completed it (the progress thread, or the thread that posted
 * the request when it failed at once or ran on the spot), after that thread released the engine.
 */
@FunctionalInterface
interface CompletionListener
{
    /**
     * Must neither block nor throw: it runs on the engine's threads, between duty cycles.
     *
     * @param status the outcome, with the error of a failure.
     */
    void onComplete(Status status);
}
