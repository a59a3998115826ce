package io.stagecoach.rank;

import java.util.concurrent.locks.LockSupport;

/**
 * Idles a thread that waits on a request between duty cycles that found no work: spins, then yields, then parks for
 * exponentially longer, registered with the request so that its completion unparks it. One per wait, not shared.
 */
final class AwaitIdler
{
    private static final int SPINS = 200;
    private static final int YIELDS = 100;
    private static final long MIN_PARK_NS = 1_000;

    private final IdleMode mode;
    private final long maxParkNs;
    private int idleCycles;
    private long parkNs = MIN_PARK_NS;

    AwaitIdler(final IdleMode mode, final long maxParkNs)
    {
        this.mode = mode;
        this.maxParkNs = maxParkNs;
    }

    void idle(final int workCount, final Request request)
    {
        if (workCount > 0)
        {
            idleCycles = 0;
            parkNs = MIN_PARK_NS;
            return;
        }
        idleCycles++;
        if (mode == IdleMode.SPIN || idleCycles <= SPINS)
        {
            Thread.onSpinWait();
        }
        else if (mode == IdleMode.YIELD || idleCycles <= SPINS + YIELDS)
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
