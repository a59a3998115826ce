package io.stagecoach.rank.engine;

import java.util.concurrent.atomic.AtomicBoolean;

import io.stagecoach.rank.Request;

/**
 * The progress lock of an engine: only ever tried ({@code compareAndSet}), never waited on, except by a user thread
 * that must have it (closing, probing) and spins. Releasing it runs the dependent actions and listeners of the
 * requests completed under it, and the notices given under it, after the release, on the releasing thread.
 */
final class ProgressLock
{
    private final AtomicBoolean held = new AtomicBoolean();
    private final Completions completions;

    ProgressLock(final Completions completions)
    {
        this.completions = completions;
    }

    /**
     * @return true when the calling thread took the lock.
     */
    boolean tryLock()
    {
        return !held.get() && held.compareAndSet(false, true);
    }

    /**
     * Takes the lock, spinning while another thread holds it: for a short wait of a user thread.
     */
    void lockSpinning()
    {
        while (!tryLock())
        {
            Thread.onSpinWait();
        }
    }

    /**
     * Takes the lock, yielding while another thread holds it: for a user thread that attaches or closes.
     */
    void lockYielding()
    {
        while (!tryLock())
        {
            Thread.yield();
        }
    }

    /**
     * Releases the lock, then completes the stages of the requests completed while it was held and runs the notices
     * given meanwhile.
     */
    void unlock()
    {
        if (completions.isEmpty())
        {
            held.setRelease(false);
            return;
        }
        final Request[] completed = completions.takeAll();
        final Runnable[] notices = completions.takeNotices();
        held.setRelease(false);
        for (final Request request : completed)
        {
            request.completeStage(request.status());
        }
        if (notices != null)
        {
            for (final Runnable notice : notices)
            {
                notice.run();
            }
        }
    }
}
