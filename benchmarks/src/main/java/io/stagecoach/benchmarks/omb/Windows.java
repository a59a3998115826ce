package io.stagecoach.benchmarks.omb;

import io.stagecoach.rank.Request;
import io.stagecoach.rank.Status;

/**
 * Waits for a window of requests and fails on the first error among them.
 */
final class Windows
{
    private Windows()
    {
    }

    static void awaitAll(final Request[] requests)
    {
        final Status[] statuses = Request.waitAll(BufferRegion.TIMEOUT, requests);
        for (final Status status : statuses)
        {
            if (status.isError())
            {
                throw new IllegalStateException("a request of the window failed: " + status, status.error());
            }
        }
    }
}
