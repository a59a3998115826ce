package io.stagecoach.rank;

import java.util.Locale;

/**
 * How a thread that waits on a request, or the rank's progress thread, idles between duty cycles that found no
 * work.
 */
public enum IdleMode
{
    /** Spin, then yield, then park for exponentially longer up to a limit: the default, kind to small machines. */
    BACKOFF,
    /** Spin briefly, then yield forever: lower latency, one core per waiting thread while it waits. */
    YIELD,
    /** Busy spin: lowest latency, one core per waiting thread; only with a core to spare for each. */
    SPIN;

    /**
     * @param text {@code backoff}, {@code yield} or {@code spin}, in any case.
     * @return the mode.
     * @throws IllegalArgumentException naming the text and the choices.
     */
    public static IdleMode parse(final String text)
    {
        try
        {
            return valueOf(text.trim().toUpperCase(Locale.ROOT));
        }
        catch (final IllegalArgumentException ex)
        {
            throw new IllegalArgumentException("idle mode '" + text + "' is not one of backoff, yield, spin", ex);
        }
    }
}
