package io.stagecoach.device;

import java.util.Arrays;

import org.agrona.concurrent.Agent;
import org.agrona.concurrent.ManyToOneConcurrentArrayQueue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Polls the events that await completion and turns their completion into callbacks, so that no actor thread ever
 * blocks on the device. Events are handed over through a bounded queue; the agent keeps them in arrival order and
 * delivers, per duty cycle, every one found complete.
 */
final class CompletionAgent implements Agent
{
    private static final Logger LOG = LoggerFactory.getLogger(CompletionAgent.class);

    private final ManyToOneConcurrentArrayQueue<DeviceEvent> submitted;
    private DeviceEvent[] pending = new DeviceEvent[64];
    private int pendingCount;

    CompletionAgent(final int capacity)
    {
        submitted = new ManyToOneConcurrentArrayQueue<>(capacity);
    }

    boolean submit(final DeviceEvent event)
    {
        return submitted.offer(event);
    }

    int awaiting()
    {
        return pendingCount + submitted.size();
    }

    @Override
    public int doWork()
    {
        int work = drainSubmitted();
        int kept = 0;
        for (int i = 0; i < pendingCount; i++)
        {
            final DeviceEvent event = pending[i];
            pending[i] = null;
            Throwable error = null;
            boolean done;
            try
            {
                done = event.pollQuietly();
            }
            catch (final RuntimeException ex)
            {
                done = true;
                error = ex;
            }
            if (done)
            {
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
            }
            pending[pendingCount++] = event;
            drained++;
        }
        return drained;
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
}
