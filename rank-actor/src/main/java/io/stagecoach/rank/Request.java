package io.stagecoach.rank;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.Collection;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.stagecoach.protocol.ErrorClass;
import io.stagecoach.protocol.datatype.Datatype;
import io.stagecoach.rank.engine.AwaitIdler;
import io.stagecoach.rank.engine.ProgressEngine;

/**
 * A non-blocking send or receive in progress (MPI_Request), and a {@link java.util.concurrent.CompletionStage} of
 * its {@link Status}.
 * <p>
 * Waiting ({@link #await(Duration)}, {@link #test()}, {@link #waitAll(Duration, Request...)},
 * {@link #waitAny(Duration, Request...)}) drives the rank's progress on the waiting thread, so a small message is
 * matched and completed without a hop to another thread; the rank's progress thread does the same in the
 * background. A failed request completes with an error: {@link #await(Duration)} throws it, a status from
 * {@link #waitAll(Duration, Request...)} carries it, the completion stage completes exceptionally with it.
 * <p>
 * Actions chained without an executor run on the thread that completes the request; they must not block. Chain
 * with an {@code ...Async} method for anything longer than a few microseconds.
 */
public final class Request extends CompletionStageAdapter<Status>
{
    private static final long MAX_TIMEOUT_NS = 1L << 61;
    private static final Duration MAX_TIMEOUT = Duration.ofNanos(MAX_TIMEOUT_NS);
    private static final int DEADLINE_CHECK_MASK = 63;
    /** Idle duty cycles a waiter runs under one hold of the engine's lock (a few microseconds). */
    private static final int HELD_IDLE_CYCLES = 32;
    private static final VarHandle FUTURE;

    static
    {
        try
        {
            FUTURE = MethodHandles.lookup().findVarHandle(Request.class, "future", CompletableFuture.class);
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new ExceptionInInitializerError(ex);
        }
    }

    private final ProgressEngine engine;
    private final String operation;
    private final int peer;
    private final int tag;
    private final long count;
    private final Datatype type;
    private final CompletionListener listener;
    private volatile Status status;
    private volatile Thread waiter;
    private volatile CompletableFuture<Status> future;

    Request(
        final ProgressEngine engine,
        final String operation,
        final int peer,
        final int tag,
        final long count,
        final Datatype type)
    {
        this(engine, operation, peer, tag, count, type, null);
    }

    /**
     * A request whose completion a listener is told of: no thread waits on it, so the engine counts it as background
     * work from here to its completion ({@link ProgressEngine#backgroundRequest(int)}).
     */
    Request(
        final ProgressEngine engine,
        final String operation,
        final int peer,
        final int tag,
        final long count,
        final Datatype type,
        final CompletionListener listener)
    {
        this.engine = engine;
        this.operation = operation;
        this.peer = peer;
        this.tag = tag;
        this.count = count;
        this.type = type;
        this.listener = listener;
        if (listener != null && engine != null)
        {
            engine.backgroundRequest(1);
        }
    }

    /**
     * Waits for the request without a time limit.
     *
     * @return the status of the completed request.
     * @throws RuntimeException the request's error when it failed.
     */
    public Status await()
    {
        Status result = status;
        if (result == null)
        {
            result = awaitSlowly(Long.MAX_VALUE);
        }
        if (result.error() != null)
        {
            throw rethrowable(result.error());
        }
        return result;
    }

    /**
     * Waits for the request, driving the rank's progress meanwhile. A wait that times out leaves the request as it
     * was: a receive stays posted and takes the next message that matches it, a send goes on; wait again, or
     * {@link #cancel()} the receive.
     *
     * @param timeout longest wait.
     * @return the status of the completed request.
     * @throws RequestTimeoutException when the request did not complete in time; it goes on.
     * @throws StagecoachException     of class {@link ErrorClass#PENDING} when the waiting thread is interrupted; the
     *                                 request goes on, the interrupt stays set.
     * @throws RuntimeException        the request's error when it failed: a {@link PeerLostException}, a
     *                                 {@link io.stagecoach.protocol.datatype.TruncationException}, an
     *                                 {@link IllegalArgumentException} for a bad argument, ...
     */
    public Status await(final Duration timeout)
    {
        Status result = status;
        if (result == null)
        {
            result = awaitSlowly(timeoutNs(timeout));
        }
        if (result.error() != null)
        {
            throw rethrowable(result.error());
        }
        return result;
    }

    /**
     * Drives the rank's progress once and tells whether the request is complete (MPI_Test).
     *
     * @return true when complete, successfully or not.
     */
    public boolean test()
    {
        if (status == null && engine != null)
        {
            engine.progress();
        }
        return status != null;
    }

    /**
     * Cancels a receive that no message has matched yet (MPI_Cancel, done at once): it completes with a status whose
     * {@link Status#isCancelled()} is true, and the message it would have taken goes to a later receive. A receive
     * that a message matched already completes as usual, and so does a send: sends cannot be cancelled (MPI-4
     * deprecates it).
     *
     * @return true when this call cancelled the receive; false when it is a send, a message matched it, or it
     * completed.
     */
    public boolean cancel()
    {
        return status == null && engine != null && !operation.contains("send") && engine.cancel(this);
    }

    /**
     * @return true when complete, without driving progress.
     */
    public boolean isDone()
    {
        return status != null;
    }

    /**
     * @return the status once complete, otherwise null.
     */
    public Status status()
    {
        return status;
    }

    /**
     * Waits for all requests (MPI_Waitall). Failed requests do not end the wait early: their statuses carry
     * their errors.
     *
     * @param timeout  longest wait for all of them.
     * @param requests to wait for.
     * @return their statuses, in order.
     * @throws RequestTimeoutException naming the first request still incomplete when the time is up.
     */
    public static Status[] waitAll(final Duration timeout, final Request... requests)
    {
        final long timeoutNs = timeoutNs(timeout);
        final long deadlineNs = deadline(timeoutNs);
        final Status[] statuses = new Status[requests.length];
        for (int i = 0; i < requests.length; i++)
        {
            final Request request = requests[i];
            final long remainingNs = deadlineNs - System.nanoTime();
            try
            {
                statuses[i] = request.status != null ? request.status : request.awaitSlowly(Math.max(0, remainingNs));
            }
            catch (final RequestTimeoutException ex)
            {
                int left = 0;
                for (final Request waited : requests)
                {
                    left += waited.isDone() ? 0 : 1;
                }
                throw new RequestTimeoutException(left + " of " + requests.length + " requests did not complete " +
                    "within " + TimeUnit.NANOSECONDS.toMillis(timeoutNs) + " ms, first: " + request);
            }
        }
        return statuses;
    }

    /**
     * Waits for all requests of a collection (MPI_Waitall).
     *
     * @param timeout  longest wait for all of them.
     * @param requests to wait for.
     * @return their statuses, in iteration order.
     */
    public static Status[] waitAll(final Duration timeout, final Collection<Request> requests)
    {
        return waitAll(timeout, requests.toArray(new Request[0]));
    }

    /**
     * Waits for any one request (MPI_Waitany).
     *
     * @param timeout  longest wait.
     * @param requests to wait for; at least one.
     * @return index of a completed request (the lowest, when several are).
     * @throws RequestTimeoutException when none completed in time.
     */
    public static int waitAny(final Duration timeout, final Request... requests)
    {
        if (requests.length == 0)
        {
            throw new InvalidArgumentException(ErrorClass.REQUEST, "waitAny needs at least one request");
        }
        final ProgressEngine engine = requests[0].engine;
        if (engine != null)
        {
            engine.waiterActive(1);
        }
        try
        {
            return awaitAny(timeout, requests);
        }
        finally
        {
            if (engine != null)
            {
                engine.waiterActive(-1);
            }
        }
    }

    private static int awaitAny(final Duration timeout, final Request... requests)
    {
        final long timeoutNs = timeoutNs(timeout);
        final long deadlineNs = deadline(timeoutNs);
        final AwaitIdler idler = requests[0].idler();
        while (true)
        {
            int work = 0;
            for (int i = 0; i < requests.length; i++)
            {
                if (requests[i].status != null)
                {
                    return i;
                }
                work += requests[i].engine == null ? 0 : requests[i].engine.progress();
            }
            if (System.nanoTime() - deadlineNs >= 0)
            {
                throw new RequestTimeoutException("none of " + requests.length + " requests completed within " +
                    TimeUnit.NANOSECONDS.toMillis(timeoutNs) + " ms, first: " + requests[0]);
            }
            checkInterrupt(requests[0]);
            idler.idle(work, requests[0]);
        }
    }

    public String toString()
    {
        final boolean send = operation.contains("send");
        return operation + "(" + (send ? "dest=" : "source=") + peerName(peer) + ", tag=" + tagName(tag) +
            ", count=" + count + " x " + type + ")" + (status == null ? " pending" : " " + status);
    }

    CompletableFuture<Status> stage()
    {
        CompletableFuture<Status> current = future;
        if (current == null)
        {
            final CompletableFuture<Status> made = new CompletableFuture<>();
            current = (CompletableFuture<Status>)FUTURE.compareAndExchange(this, null, made);
            if (current == null)
            {
                current = made;
            }
            final Status done = status;
            if (done != null)
            {
                completeFuture(current, done);
            }
        }
        return current;
    }

    /**
     * Completes the request. Dependent stage actions and the listener are not run here: the caller runs
     * {@link #completeStage(Status)} once it holds no lock, when this returns true.
     * <p>
     * Public for the progress engine ({@code io.stagecoach.rank.engine}); applications do not call it.
     *
     * @param outcome the status, with an error for a failure.
     * @return true when a completion stage or a listener awaits {@link #completeStage(Status)}.
     */
    public boolean complete(final Status outcome)
    {
        if (status != null)
        {
            return false;
        }
        status = outcome;
        final Thread parked = waiter;
        if (parked != null)
        {
            java.util.concurrent.locks.LockSupport.unpark(parked);
        }
        return future != null || listener != null;
    }

    /**
     * Tells the listener, if the request has one, and runs the dependent actions of the request's completion stage, if
     * it has one, with the outcome; called once, by whoever completed the request.
     * <p>
     * Public for the progress engine ({@code io.stagecoach.rank.engine}); applications do not call it.
     *
     * @param outcome the status the request completed with.
     */
    public void completeStage(final Status outcome)
    {
        if (listener != null)
        {
            if (engine != null)
            {
                engine.backgroundRequest(-1);
            }
            listener.onComplete(outcome);
        }
        final CompletableFuture<Status> current = future;
        if (current != null)
        {
            completeFuture(current, outcome);
        }
    }

    private static void completeFuture(final CompletableFuture<Status> current, final Status outcome)
    {
        if (outcome.error() != null)
        {
            current.completeExceptionally(outcome.error());
        }
        else
        {
            current.complete(outcome);
        }
    }

    /**
     * Public for the progress engine ({@code io.stagecoach.rank.engine}); applications do not call it.
     *
     * @return the destination of a send, the source (or {@link Communicator#ANY_SOURCE}) of a receive.
     */
    public int peer()
    {
        return peer;
    }

    /**
     * Public for the progress engine ({@code io.stagecoach.rank.engine}); applications do not call it.
     *
     * @return the tag the request was posted with.
     */
    public int tag()
    {
        return tag;
    }

    /**
     * Names the thread to unpark when the request completes.
     * <p>
     * Public for the progress engine ({@code io.stagecoach.rank.engine}); applications do not call it.
     *
     * @param thread the waiting thread, or null when it stopped waiting.
     */
    public void waiter(final Thread thread)
    {
        waiter = thread;
    }

    /**
     * Tells the engine that a waiting thread parks (true) or woke up (false), so that the progress thread stops
     * or resumes standing aside.
     * <p>
     * Public for the progress engine ({@code io.stagecoach.rank.engine}); applications do not call it.
     *
     * @param parked whether the waiter is about to park.
     */
    public void parking(final boolean parked)
    {
        if (engine != null)
        {
            engine.waiterActive(parked ? -1 : 1);
        }
    }

    static String peerName(final int rank)
    {
        return rank == Communicator.ANY_SOURCE ? "ANY_SOURCE" : String.valueOf(rank);
    }

    /**
     * Names a tag for a message.
     * <p>
     * Public for the progress engine ({@code io.stagecoach.rank.engine}); applications do not call it.
     *
     * @param tag a tag.
     * @return {@code ANY_TAG} for {@link Communicator#ANY_TAG}, otherwise the number.
     */
    public static String tagName(final int tag)
    {
        return tag == Communicator.ANY_TAG ? "ANY_TAG" : String.valueOf(tag);
    }

    private Status awaitSlowly(final long timeoutNs)
    {
        if (engine == null)
        {
            return awaitWithoutEngine(timeoutNs);
        }
        engine.waiterActive(1);
        try
        {
            return awaitDrivingProgress(timeoutNs);
        }
        finally
        {
            engine.waiterActive(-1);
        }
    }

    private Status awaitWithoutEngine(final long timeoutNs)
    {
        final long deadlineNs = deadline(timeoutNs);
        final AwaitIdler idler = idler();
        Status result;
        while ((result = status) == null)
        {
            if (System.nanoTime() - deadlineNs >= 0)
            {
                throw new RequestTimeoutException(this + " did not complete within " +
                    TimeUnit.NANOSECONDS.toMillis(timeoutNs) + " ms");
            }
            checkInterrupt(this);
            idler.idle(0, this);
        }
        return result;
    }

    private Status awaitDrivingProgress(final long timeoutNs)
    {
        final long deadlineNs = deadline(timeoutNs);
        final AwaitIdler idler = idler();
        Status result;
        int cycles = 0;
        while ((result = status) == null)
        {
            final int work = engine.progressWhileWaiting(this, HELD_IDLE_CYCLES);
            if ((result = status) != null)
            {
                break;
            }
            if ((++cycles & DEADLINE_CHECK_MASK) == 0 && System.nanoTime() - deadlineNs >= 0)
            {
                throw new RequestTimeoutException(this + " did not complete within " +
                    TimeUnit.NANOSECONDS.toMillis(timeoutNs) + " ms");
            }
            checkInterrupt(this);
            idler.idle(work, this);
        }
        return result;
    }

    /**
     * Ends a wait whose thread was interrupted, as a timeout does: the request goes on; the interrupt stays set.
     *
     * @param waitedFor what the wait is for, to name.
     * @throws StagecoachException of class {@link ErrorClass#PENDING} when the thread is interrupted.
     */
    static void checkInterrupt(final Object waitedFor)
    {
        if (Thread.currentThread().isInterrupted())
        {
            throw new StagecoachException(ErrorClass.PENDING, "the wait for " + waitedFor + " ended: its thread " +
                "was interrupted (a request goes on: wait again, or cancel it)");
        }
    }

    private AwaitIdler idler()
    {
        return engine == null ? new AwaitIdler(IdleMode.BACKOFF, 1_000_000) : engine.newIdler();
    }

    /**
     * @return the timeout in nanoseconds, at most {@link #MAX_TIMEOUT_NS} (about 73 years: any longer is as long).
     * @throws InvalidArgumentException for no timeout or a negative one, naming it.
     */
    private static long timeoutNs(final Duration timeout)
    {
        if (timeout == null || timeout.isNegative())
        {
            throw new InvalidArgumentException(ErrorClass.ARG, (timeout == null ? "timeout is null" : "timeout " +
                timeout + " is negative") + " (Duration.ZERO tests once, a longer one waits)");
        }
        return timeout.compareTo(MAX_TIMEOUT) > 0 ? MAX_TIMEOUT_NS : timeout.toNanos();
    }

    private static long deadline(final long timeoutNs)
    {
        return System.nanoTime() + Math.min(timeoutNs, MAX_TIMEOUT_NS);
    }

    private static RuntimeException rethrowable(final Throwable error)
    {
        if (error instanceof RuntimeException)
        {
            return (RuntimeException)error;
        }
        if (error instanceof Error)
        {
            throw (Error)error;
        }
        return new StagecoachException(error.getMessage(), error);
    }
}
