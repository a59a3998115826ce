package io.stagecoach.rank.engine;

import io.stagecoach.pipeline.trace.StageTracer;
import io.stagecoach.pipeline.trace.TracedPath;

/**
 * Records the path each message takes, and its end, into the stage trace's ring, for a live view of the transfers in
 * flight: once per message where the engine chooses the path, once at its completion; nothing when tracing is off.
 * The operation keeps its path and when it took it, so that its end is recorded with both.
 */
final class TransferTrace
{
    private TransferTrace()
    {
    }

    static void begun(final StageTracer tracer, final SendOperation send, final TracedPath path, final int chunks)
    {
        send.path = path;
        if (tracer.isEnabled())
        {
            send.pathStartNs = System.nanoTime();
            tracer.transferBegun(send.transferId, send.destination, path, false, send.packedBytes, chunks,
                send.pathStartNs);
        }
    }

    static void begun(
        final StageTracer tracer, final ReceiveOperation receive, final TracedPath path, final int chunks)
    {
        receive.path = path;
        if (tracer.isEnabled())
        {
            receive.pathStartNs = System.nanoTime();
            tracer.transferBegun(receive.transferId, receive.matchedSource, path, true, receive.packedBytes, chunks,
                receive.pathStartNs);
        }
    }

    /**
     * A send whose path needs no record of its start: it completes as it takes it (an eager send that waits for no
     * acknowledgement).
     */
    static void took(final SendOperation send, final TracedPath path)
    {
        send.path = path;
        send.pathStartNs = 0;
    }

    /**
     * A receive whose path needs no record of its start: it completes as it takes it (an eager message).
     */
    static void took(final ReceiveOperation receive, final TracedPath path)
    {
        receive.path = path;
        receive.pathStartNs = 0;
    }

    static void ended(final StageTracer tracer, final SendOperation send)
    {
        if (tracer.isEnabled())
        {
            final long endNs = System.nanoTime();
            tracer.transferEnded(send.transferId, send.destination, null == send.path ? TracedPath.EAGER : send.path,
                false, send.packedBytes, 0 == send.pathStartNs ? endNs : send.pathStartNs, endNs, false);
        }
    }

    static void ended(final StageTracer tracer, final ReceiveOperation receive)
    {
        if (tracer.isEnabled())
        {
            final long endNs = System.nanoTime();
            tracer.transferEnded(receive.transferId, receive.matchedSource,
                null == receive.path ? TracedPath.RENDEZVOUS : receive.path, true, receive.receivedBytes,
                0 == receive.pathStartNs ? endNs : receive.pathStartNs, endNs, false);
        }
    }
}
