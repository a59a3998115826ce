package io.stagecoach.rank.engine;

import java.util.ArrayList;

import io.stagecoach.pipeline.trace.StageTracer;

import io.stagecoach.rank.Request;
import io.stagecoach.rank.Status;

/**
 * Completes requests under the progress lock and holds what must run once it is released: the requests whose
 * completion stage has dependent actions or a listener, and the notices of arrivals and probes. They run after the
 * lock is released, on the completing thread, so that user code never runs inside the engine.
 */
final class Completions
{
    private final ArrayList<Request> stagesToComplete = new ArrayList<>();
    private final ArrayList<Runnable> notices = new ArrayList<>();
    private final StageTracer tracer;

    Completions(final StageTracer tracer)
    {
        this.tracer = tracer;
    }

    void completeReceive(final ReceiveOperation receive)
    {
        TransferTrace.ended(tracer, receive);
        complete(receive.request, Status.of(receive.matchedSource, receive.matchedTag, receive.receivedBytes,
            receive.typeSizeBytes));
    }

    void completeSend(final SendOperation send)
    {
        TransferTrace.ended(tracer, send);
        complete(send.request, new Status(send.destination, send.tag, send.count, send.packedBytes, null));
    }

    void complete(final Request request, final Status status)
    {
        if (request.complete(status))
        {
            stagesToComplete.add(request);
        }
    }

    void fail(final Request request, final Throwable failure)
    {
        complete(request, Status.failed(request.peer(), request.tag(), failure));
    }

    /**
     * @param notice to run once the lock is released, after the completions before it; must not block.
     */
    void afterRelease(final Runnable notice)
    {
        notices.add(notice);
    }

    /**
     * @return true when nothing waits to run.
     */
    boolean isEmpty()
    {
        return stagesToComplete.isEmpty() && notices.isEmpty();
    }

    /**
     * Takes the requests whose stages must run once the lock is released.
     *
     * @return them, in completion order.
     */
    Request[] takeAll()
    {
        final Request[] completed = stagesToComplete.toArray(new Request[0]);
        stagesToComplete.clear();
        return completed;
    }

    /**
     * Takes the notices that must run once the lock is released.
     *
     * @return them, in the order given; null when there are none.
     */
    Runnable[] takeNotices()
    {
        if (notices.isEmpty())
        {
            return null;
        }
        final Runnable[] taken = notices.toArray(new Runnable[0]);
        notices.clear();
        return taken;
    }
}
