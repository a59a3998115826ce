package io.stagecoach.rank.engine;

import java.util.concurrent.locks.LockSupport;

import org.agrona.concurrent.Agent;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.IdleStrategy;

/**
 * The rank's background progress: runs the engine's duty cycle whenever no other thread does, so that transfers
 * advance and unexpected messages drain while the application computes.
 */
public final class ProgressAgent implements Agent
{
    /** How long the progress thread sleeps while a waiting thread drives the engine itself. */
    static final long STAND_ASIDE_PARK_NS = 1_000_000;

    private final ProgressEngine engine;

    public ProgressAgent(final ProgressEngine engine)
    {
        this.engine = engine;
    }

    public void onStart()
    {
        engine.progressThread(Thread.currentThread());
    }

    public int doWork()
    {
        return engine.backgroundProgress();
    }

    public String roleName()
    {
        return "stagecoach-progress-rank-" + engine.rank();
    }

    /**
     * The progress thread's idling: backs off to parks of at most {@code maxParkNs} while it is the one driving the
     * engine, and sleeps {@link #STAND_ASIDE_PARK_NS} while a waiting thread drives it: a waiter needs no help, and
     * every wake-up of this thread takes a core from the waiter or from its peer on a small machine. While requests
     * that no thread waits on are in flight (those of the messaging actor), it idles as a waiting thread would
     * ({@code stagecoach.idle}), since it is the one that completes them.
     *
     * @param maxParkNs longest park while this thread drives the engine.
     * @return the idle strategy for the progress thread's runner.
     */
    public IdleStrategy idleStrategy(final long maxParkNs)
    {
        final BackoffIdleStrategy backoff = new BackoffIdleStrategy(10, 20, 1_000, maxParkNs);
        final AwaitIdler waiting = engine.newIdler();
        return new IdleStrategy()
        {
            public void idle(final int workCount)
            {
                if (workCount == 0 && engine.hasActiveWaiter())
                {
                    backoff.reset();
                    LockSupport.parkNanos(STAND_ASIDE_PARK_NS);
                }
                else if (engine.hasBackgroundRequests())
                {
                    backoff.reset();
                    waiting.idle(workCount, null);
                }
                else
                {
                    backoff.idle(workCount);
                }
            }

            public void idle()
            {
                backoff.idle();
            }

            public void reset()
            {
                backoff.reset();
            }

            public String alias()
            {
                return "stand-aside-backoff";
            }
        };
    }
}
