package io.stagecoach.rank;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.function.BiConsumer;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * A {@link CompletionStage} that hands every method to a {@link CompletableFuture} made on first use, so that a
 * request nobody chains on never pays for one. Dependent actions without an executor run on the thread that
 * completes the stage: a progress thread, outside any lock, or the thread that chains on an already completed stage.
 *
 * @param <T> the result type.
 */
abstract class CompletionStageAdapter<T> implements CompletionStage<T>
{
    /**
     * @return the future behind this stage, made and completed as needed.
     */
    abstract CompletableFuture<T> stage();

    /**
     * @return a new future completed with this stage's outcome; completing it does not affect this stage.
     */
    public CompletableFuture<T> toCompletableFuture()
    {
        return stage().copy();
    }

    /**
     * See {@link CompletionStage#thenApply}.
     */
    public <U> CompletionStage<U> thenApply(final Function<? super T, ? extends U> fn)
    {
        return stage().thenApply(fn);
    }

    /**
     * See {@link CompletionStage#thenApplyAsync}.
     */
    public <U> CompletionStage<U> thenApplyAsync(final Function<? super T, ? extends U> fn)
    {
        return stage().thenApplyAsync(fn);
    }

    /**
     * See {@link CompletionStage#thenApplyAsync}.
     */
    public <U> CompletionStage<U> thenApplyAsync(final Function<? super T, ? extends U> fn, final Executor executor)
    {
        return stage().thenApplyAsync(fn, executor);
    }

    /**
     * See {@link CompletionStage#thenAccept}.
     */
    public CompletionStage<Void> thenAccept(final Consumer<? super T> action)
    {
        return stage().thenAccept(action);
    }

    /**
     * See {@link CompletionStage#thenAcceptAsync}.
     */
    public CompletionStage<Void> thenAcceptAsync(final Consumer<? super T> action)
    {
        return stage().thenAcceptAsync(action);
    }

    /**
     * See {@link CompletionStage#thenAcceptAsync}.
     */
    public CompletionStage<Void> thenAcceptAsync(final Consumer<? super T> action, final Executor executor)
    {
        return stage().thenAcceptAsync(action, executor);
    }

    /**
     * See {@link CompletionStage#thenRun}.
     */
    public CompletionStage<Void> thenRun(final Runnable action)
    {
        return stage().thenRun(action);
    }

    /**
     * See {@link CompletionStage#thenRunAsync}.
     */
    public CompletionStage<Void> thenRunAsync(final Runnable action)
    {
        return stage().thenRunAsync(action);
    }

    /**
     * See {@link CompletionStage#thenRunAsync}.
     */
    public CompletionStage<Void> thenRunAsync(final Runnable action, final Executor executor)
    {
        return stage().thenRunAsync(action, executor);
    }

    /**
     * See {@link CompletionStage#thenCombine}.
     */
    public <U, V> CompletionStage<V> thenCombine(
        final CompletionStage<? extends U> other,
        final BiFunction<? super T, ? super U, ? extends V> fn)
    {
        return stage().thenCombine(other, fn);
    }

    /**
     * See {@link CompletionStage#thenCombineAsync}.
     */
    public <U, V> CompletionStage<V> thenCombineAsync(
        final CompletionStage<? extends U> other,
        final BiFunction<? super T, ? super U, ? extends V> fn)
    {
        return stage().thenCombineAsync(other, fn);
    }

    /**
     * See {@link CompletionStage#thenCombineAsync}.
     */
    public <U, V> CompletionStage<V> thenCombineAsync(
        final CompletionStage<? extends U> other,
        final BiFunction<? super T, ? super U, ? extends V> fn,
        final Executor executor)
    {
        return stage().thenCombineAsync(other, fn, executor);
    }

    /**
     * See {@link CompletionStage#thenAcceptBoth}.
     */
    public <U> CompletionStage<Void> thenAcceptBoth(
        final CompletionStage<? extends U> other,
        final BiConsumer<? super T, ? super U> action)
    {
        return stage().thenAcceptBoth(other, action);
    }

    /**
     * See {@link CompletionStage#thenAcceptBothAsync}.
     */
    public <U> CompletionStage<Void> thenAcceptBothAsync(
        final CompletionStage<? extends U> other,
        final BiConsumer<? super T, ? super U> action)
    {
        return stage().thenAcceptBothAsync(other, action);
    }

    /**
     * See {@link CompletionStage#thenAcceptBothAsync}.
     */
    public <U> CompletionStage<Void> thenAcceptBothAsync(
        final CompletionStage<? extends U> other,
        final BiConsumer<? super T, ? super U> action,
        final Executor executor)
    {
        return stage().thenAcceptBothAsync(other, action, executor);
    }

    /**
     * See {@link CompletionStage#runAfterBoth}.
     */
    public CompletionStage<Void> runAfterBoth(final CompletionStage<?> other, final Runnable action)
    {
        return stage().runAfterBoth(other, action);
    }

    /**
     * See {@link CompletionStage#runAfterBothAsync}.
     */
    public CompletionStage<Void> runAfterBothAsync(final CompletionStage<?> other, final Runnable action)
    {
        return stage().runAfterBothAsync(other, action);
    }

    /**
     * See {@link CompletionStage#runAfterBothAsync}.
     */
    public CompletionStage<Void> runAfterBothAsync(
        final CompletionStage<?> other,
        final Runnable action,
        final Executor executor)
    {
        return stage().runAfterBothAsync(other, action, executor);
    }

    /**
     * See {@link CompletionStage#applyToEither}.
     */
    public <U> CompletionStage<U> applyToEither(
        final CompletionStage<? extends T> other,
        final Function<? super T, U> fn)
    {
        return stage().applyToEither(other, fn);
    }

    /**
     * See {@link CompletionStage#applyToEitherAsync}.
     */
    public <U> CompletionStage<U> applyToEitherAsync(
        final CompletionStage<? extends T> other,
        final Function<? super T, U> fn)
    {
        return stage().applyToEitherAsync(other, fn);
    }

    /**
     * See {@link CompletionStage#applyToEitherAsync}.
     */
    public <U> CompletionStage<U> applyToEitherAsync(
        final CompletionStage<? extends T> other,
        final Function<? super T, U> fn,
        final Executor executor)
    {
        return stage().applyToEitherAsync(other, fn, executor);
    }

    /**
     * See {@link CompletionStage#acceptEither}.
     */
    public CompletionStage<Void> acceptEither(
        final CompletionStage<? extends T> other,
        final Consumer<? super T> action)
    {
        return stage().acceptEither(other, action);
    }

    /**
     * See {@link CompletionStage#acceptEitherAsync}.
     */
    public CompletionStage<Void> acceptEitherAsync(
        final CompletionStage<? extends T> other,
        final Consumer<? super T> action)
    {
        return stage().acceptEitherAsync(other, action);
    }

    /**
     * See {@link CompletionStage#acceptEitherAsync}.
     */
    public CompletionStage<Void> acceptEitherAsync(
        final CompletionStage<? extends T> other,
        final Consumer<? super T> action,
        final Executor executor)
    {
        return stage().acceptEitherAsync(other, action, executor);
    }

    /**
     * See {@link CompletionStage#runAfterEither}.
     */
    public CompletionStage<Void> runAfterEither(final CompletionStage<?> other, final Runnable action)
    {
        return stage().runAfterEither(other, action);
    }

    /**
     * See {@link CompletionStage#runAfterEitherAsync}.
     */
    public CompletionStage<Void> runAfterEitherAsync(final CompletionStage<?> other, final Runnable action)
    {
        return stage().runAfterEitherAsync(other, action);
    }

    /**
     * See {@link CompletionStage#runAfterEitherAsync}.
     */
    public CompletionStage<Void> runAfterEitherAsync(
        final CompletionStage<?> other,
        final Runnable action,
        final Executor executor)
    {
        return stage().runAfterEitherAsync(other, action, executor);
    }

    /**
     * See {@link CompletionStage#thenCompose}.
     */
    public <U> CompletionStage<U> thenCompose(final Function<? super T, ? extends CompletionStage<U>> fn)
    {
        return stage().thenCompose(fn);
    }

    /**
     * See {@link CompletionStage#thenComposeAsync}.
     */
    public <U> CompletionStage<U> thenComposeAsync(final Function<? super T, ? extends CompletionStage<U>> fn)
    {
        return stage().thenComposeAsync(fn);
    }

    /**
     * See {@link CompletionStage#thenComposeAsync}.
     */
    public <U> CompletionStage<U> thenComposeAsync(
        final Function<? super T, ? extends CompletionStage<U>> fn,
        final Executor executor)
    {
        return stage().thenComposeAsync(fn, executor);
    }

    /**
     * See {@link CompletionStage#handle}.
     */
    public <U> CompletionStage<U> handle(final BiFunction<? super T, Throwable, ? extends U> fn)
    {
        return stage().handle(fn);
    }

    /**
     * See {@link CompletionStage#handleAsync}.
     */
    public <U> CompletionStage<U> handleAsync(final BiFunction<? super T, Throwable, ? extends U> fn)
    {
        return stage().handleAsync(fn);
    }

    /**
     * See {@link CompletionStage#handleAsync}.
     */
    public <U> CompletionStage<U> handleAsync(
        final BiFunction<? super T, Throwable, ? extends U> fn,
        final Executor executor)
    {
        return stage().handleAsync(fn, executor);
    }

    /**
     * See {@link CompletionStage#whenComplete}.
     */
    public CompletionStage<T> whenComplete(final BiConsumer<? super T, ? super Throwable> action)
    {
        return stage().whenComplete(action);
    }

    /**
     * See {@link CompletionStage#whenCompleteAsync}.
     */
    public CompletionStage<T> whenCompleteAsync(final BiConsumer<? super T, ? super Throwable> action)
    {
        return stage().whenCompleteAsync(action);
    }

    /**
     * See {@link CompletionStage#whenCompleteAsync}.
     */
    public CompletionStage<T> whenCompleteAsync(
        final BiConsumer<? super T, ? super Throwable> action,
        final Executor executor)
    {
        return stage().whenCompleteAsync(action, executor);
    }

    /**
     * See {@link CompletionStage#exceptionally}.
     */
    public CompletionStage<T> exceptionally(final Function<Throwable, ? extends T> fn)
    {
        return stage().exceptionally(fn);
    }
}
