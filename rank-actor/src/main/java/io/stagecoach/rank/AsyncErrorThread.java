package io.stagecoach.rank;

import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs an application's handler of asynchronous errors on a thread of its own, one error at a time and in order: the
 * engine finds such errors while it holds its lock, so a handler run there could not call the communicator (a send
 * or a close would wait for that lock for ever). The thread starts at the first error and ends after a second idle.
 */
final class AsyncErrorThread implements Consumer<Throwable>
{
    private static final Logger LOG = LoggerFactory.getLogger(AsyncErrorThread.class);

    private final Consumer<Throwable> handler;
    private final int rank;
    private final ThreadPoolExecutor executor;

    AsyncErrorThread(final Consumer<Throwable> handler, final int rank)
    {
        this.handler = handler;
        this.rank = rank;
        this.executor = new ThreadPoolExecutor(1, 1, 1, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), task ->
        {
            final Thread thread = new Thread(task, "stagecoach-async-errors-" + rank);
            thread.setDaemon(true);
            return thread;
        });
        executor.allowCoreThreadTimeOut(true);
    }

    public void accept(final Throwable error)
    {
        executor.execute(() ->
        {
            try
            {
                handler.accept(error);
            }
            catch (final RuntimeException ex)
            {
                LOG.warn("rank {}: the asynchronous error handler failed on '{}'", rank, error.getMessage(), ex);
            }
        });
    }
}
