package io.stagecoach.rank.engine;

import java.util.ArrayList;

import io.stagecoach.rank.Request;
import io.stagecoach.rank.Status;

/**
 * Completes requests under the progress lock and holds those whose completion stage has dependent actions to run:
 * they run after the lock is released, on the completing thread, so that user code never runs inside the engine.
 */
final class Completions
{
    private final ArrayList<Request> stagesToComplete = new ArrayList<>();

    void completeReceive(final ReceiveOperation receive)
    {
        complete(receive.request, Status.of(receive.matchedSource, receive.matchedTag, receive.receivedBytes,
            receive.typeSizeBytes));
    }

    void completeSend(final SendOperation send)
    {
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
     * @return true when no completion stage waits to run.
     */
    boolean isEmpty()
    {
        return stagesToComplete.isEmpty();
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
}
