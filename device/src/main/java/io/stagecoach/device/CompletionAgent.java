package io.stagecoach.device;

import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import org.agrona.concurrent.Agent;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.ManyToOneConcurrentArrayQueue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Polls the events that await completion and turns their completion into callbacks, so that no actor thread ever
 * blocks on the device. Events are handed over through a bounded queue; the agent keeps them in arrival order and
 * delivers, per duty cycle, every one found complete, in arrival order. It polls them newest first: an event found
 * complete implies that every event recorded before it on the same stream is found complete too, so that events of one
 * stream are delivered in stream order even when they complete while the agent polls. Run on a thread of its own with {@link #idleStrategy}, it
 * sleeps once nothing has been awaited for a while, until {@link #submit} wakes it: an idle runtime takes no CPU.
 */
final class CompletionAgent implements Agent
{
    private static final Logger LOG = LoggerFactory.getLogger(CompletionAgent.class);

    private final ManyToOneConcurrentArrayQueue<DeviceEvent> submitted;
    private final AtomicLong dutyCycles = new AtomicLong();
    private final AtomicLong sleeps = new AtomicLong();
    private DeviceEvent[] pending = new DeviceEvent[64];
    private boolean[] done = new boolean[64];
    private Throwable[] errors = new Throwable[64];
    private int pendingCount;
    private volatile Thread thread;
    private volatile boolean sleeping;
    private volatile boolean closing;

    CompletionAgent(final int capacity)
    {
        submitted = new ManyToOneConcurrentArrayQueue<>(capacity);
    }

    boolean submit(final DeviceEvent event)
    {
        final boolean accepted = submitted.offer(event);
        if (sleeping)
        {
            LockSupport.unpark(thread);
        }
        return accepted;
    }

    int awaiting()
    {
        return pendingCount + submitted.size();
    }

    /**
     * @return duty cycles run so far: how often the agent woke up.
     */
    long dutyCycles()
    {
        return dutyCycles.get();
    }

    /**
     * @return times the agent went to sleep until woken by a submission.
     */
    long sleeps()
    {
        return sleeps.get();
    }

    /**
     * @param delegate        what to do between duty cycles while completions are awaited, or for a while after.
     * @param sleepAfterIdleNs how long nothing must be awaited before the agent sleeps until the next submission.
     * @return the idle strategy of the agent's own thread.
     */
    IdleStrategy idleStrategy(final IdleStrategy delegate, final long sleepAfterIdleNs)
    {
        return new SleepingIdleStrategy(this, delegate, sleepAfterIdleNs);
    }

    /**
     * Never sleep again: the runner is about to stop the agent's thread.
     */
    void wakeForClose()
    {
        closing = true;
        final Thread agentThread = thread;
        if (agentThread != null)
        {
            LockSupport.unpark(agentThread);
        }
    }

    @Override
    public void onStart()
    {
        thread = Thread.currentThread();
    }

    @Override
    public int doWork()
    {
        dutyCycles.lazySet(dutyCycles.get() + 1);
        int work = drainSubmitted();
        for (int i = pendingCount - 1; i >= 0; i--)
        {
            try
            {
                done[i] = pending[i].pollQuietly();
            }
            catch (final RuntimeException ex)
            {
                done[i] = true;
                errors[i] = ex;
            }
        }
        int kept = 0;
        for (int i = 0; i < pendingCount; i++)
        {
            final DeviceEvent event = pending[i];
            pending[i] = null;
            if (done[i])
            {
                final Throwable error = errors[i];
                errors[i] = null;
                deliver(event, error);
                work++;
            }
            else
            {
                pending[kept++] = event;
            }
        }
        pendingCount = kept;
        return work;
    }

    @Override
    public void onClose()
    {
        drainSubmitted();
        final DeviceException closed = new DeviceException("device runtime closed before the event completed");
        for (int i = 0; i < pendingCount; i++)
        {
            deliver(pending[i], closed);
            pending[i] = null;
        }
        pendingCount = 0;
    }

    @Override
    public String roleName()
    {
        return "stagecoach-device-completions";
    }

    private int drainSubmitted()
    {
        int drained = 0;
        DeviceEvent event;
        while ((event = submitted.poll()) != null)
        {
            if (pendingCount == pending.length)
            {
                pending = Arrays.copyOf(pending, pending.length * 2);
                done = Arrays.copyOf(done, pending.length);
                errors = Arrays.copyOf(errors, pending.length);
            }
            pending[pendingCount++] = event;
            drained++;
        }
        return drained;
    }

    private boolean isIdle()
    {
        return pendingCount == 0 && submitted.isEmpty() && !closing;
    }

    private void sleepUntilSubmitted()
    {
        sleeping = true;
        if (isIdle())
        {
            sleeps.lazySet(sleeps.get() + 1);
            LockSupport.park(this);
        }
        sleeping = false;
    }

    private static void deliver(final DeviceEvent event, final Throwable error)
    {
        try
        {
            event.deliver(error);
        }
        catch (final RuntimeException ex)
        {
            LOG.warn("completion handler failed", ex);
        }
    }

    /**
     * The configured idle strategy while completions are awaited and for {@code sleepAfterIdleNs} after the last one;
     * then a park without limit, ended by the next submission (or by closing).
     */
    private static final class SleepingIdleStrategy implements IdleStrategy
    {
        private final CompletionAgent agent;
        private final IdleStrategy delegate;
        private final long sleepAfterIdleNs;
        private long idleSinceNs;
        private boolean idleSeen;

        SleepingIdleStrategy(final CompletionAgent agent, final IdleStrategy delegate, final long sleepAfterIdleNs)
        {
            this.agent = agent;
            this.delegate = delegate;
            this.sleepAfterIdleNs = sleepAfterIdleNs;
        }

        @Override
        public void idle(final int workCount)
        {
            if (workCount > 0)
            {
                idleSeen = false;
                delegate.reset();
                return;
            }
            idle();
        }

        @Override
        public void idle()
        {
            if (!agent.isIdle())
            {
                idleSeen = false;
                delegate.idle();
                return;
            }
            final long nowNs = System.nanoTime();
            if (!idleSeen)
            {
                idleSeen = true;
                idleSinceNs = nowNs;
            }
            if (nowNs - idleSinceNs < sleepAfterIdleNs)
            {
                delegate.idle();
                return;
            }
            agent.sleepUntilSubmitted();
            idleSeen = false;
            delegate.reset();
        }

        @Override
        public void reset()
        {
            idleSeen = false;
            delegate.reset();
        }

        @Override
        public String alias()
        {
            return "sleeping-" + delegate.alias();
        }
    }
}
