package io.stagecoach.rank;

import org.agrona.concurrent.Agent;

/**
 * The rank's background progress: runs the engine's duty cycle whenever no other thread does, so that transfers
 * advance and unexpected messages drain while the application computes.
 */
final class ProgressAgent implements Agent
{
    private final ProgressEngine engine;

    ProgressAgent(final ProgressEngine engine)
    {
        this.engine = engine;
    }

    public int doWork()
    {
        return engine.backgroundProgress();
    }

    public String roleName()
    {
        return "stagecoach-progress-rank-" + engine.rank();
    }
}
