package io.stagecoach.rank.engine;

import java.util.concurrent.locks.LockSupport;

import io.stagecoach.rank.IdleMode;
import io.stagecoach.rank.Request;

/**
 * Idles a thread that waits on a request between duty cycles that found no work: spins for {@link #SPIN_NS} (with a
 * yield every {@link #YIELD_EVERY_NS}), yields until {@link #YIELD_UNTIL_NS} have passed, then parks for
 * exponentially longer, registered with the request so that its completion unparks it. The phases are timed, not counted: a reply held up by a preempted peer for a few
 * tens of microseconds must not cost the waiter a park, whose wake-up alone costs about as much again (timer slack).
 * One per wait, not shared.
 */
public final class AwaitIdler
{
    /** How long a waiter spins after its last useful duty cycle. */
    static final long SPIN_NS = 50_000;
    /** How long after its last useful duty cycle a waiter stops yielding and starts to park. */
    static final long YIELD_UNTIL_NS = 500_000;
    /**
     * How often a spinning waiter yields once: two ranks whose waiting threads the scheduler put on one core (a
     * compiler or another process holding the other) hand the core over within this, not after {@link #SPIN_NS}.
     */
    static final long YIELD_EVERY_NS = 20_000;
    private static final long MIN_PARK_NS = 1_000;
    /** While spinning, the clock is read on one idle call in this many (mask + 1): it costs as much as a poll. */
    private static final int CLOCK_EVERY_MASK = 7;

    private final IdleMode mode;
    private final long maxParkNs;
    private long idleSinceNs;
    private long lastYieldNs;
    private boolean spinning;
    private int spins;
    private boolean idle;
    private long parkNs = MIN_PARK_NS;

    public AwaitIdler(final IdleMode mode, final long maxParkNs)
    {
        this.mode = mode;
        this.maxParkNs = maxParkNs;
    }

    /**
     * @param workCount of the last duty cycle.
     * @param request   the request waited on, whose completion unparks this thread; null for the progress thread,
     *                  which is woken by new commands only.
     */
    public void idle(final int workCount, final Request request)
    {
        if (workCount > 0)
        {
            idle = false;
            parkNs = MIN_PARK_NS;
            return;
        }
        if (mode == IdleMode.SPIN || idle && (++spins & CLOCK_EVERY_MASK) != 0 && spinning)
        {
            Thread.onSpinWait();
            return;
        }
        final long nowNs = System.nanoTime();
        if (!idle)
        {
            idle = true;
            idleSinceNs = nowNs;
            lastYieldNs = nowNs;
        }
        final long idleNs = nowNs - idleSinceNs;
        spinning = idleNs < SPIN_NS;
        if (spinning)
        {
            if (nowNs - lastYieldNs >= YIELD_EVERY_NS)
            {
                lastYieldNs = nowNs;
                Thread.yield();
            }
            else
            {
                Thread.onSpinWait();
            }
        }
        else if (mode == IdleMode.YIELD || idleNs < YIELD_UNTIL_NS)
        {
            Thread.yield();
        }
        else
        {
            park(request);
        }
    }

    private void park(final Request request)
    {
        if (request == null)
        {
            LockSupport.parkNanos(this, parkNs);
            parkNs = Math.min(parkNs << 1, maxParkNs);
            return;
        }
        request.waiter(Thread.currentThread());
        if (!request.isDone())
        {
            request.parking(true);
            LockSupport.parkNanos(request, parkNs);
            request.parking(false);
        }
        request.waiter(null);
        parkNs = Math.min(parkNs << 1, maxParkNs);
    }
}
