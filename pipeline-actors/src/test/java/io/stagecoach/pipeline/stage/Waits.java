package io.stagecoach.pipeline.stage;

import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.IntSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Bounded waits that say what they waited for.
 */
final class Waits
{
    private Waits()
    {
    }

    /**
     * Waits until the condition holds, failing after the timeout with what was waited for.
     */
    static void until(final BooleanSupplier condition, final Duration timeout, final String what)
    {
        final long deadlineNs = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean())
        {
            assertTrue(System.nanoTime() - deadlineNs < 0, "waited " + timeout.toMillis() + " ms for " + what);
            Thread.onSpinWait();
            Thread.yield();
        }
    }

    /**
     * Checks that a value stays what it is for the whole period.
     */
    static void stays(final int expected, final IntSupplier value, final Duration period, final String what)
    {
        final long endNs = System.nanoTime() + period.toNanos();
        do
        {
            assertEquals(expected, value.getAsInt(), what);
            Thread.yield();
        }
        while (System.nanoTime() - endNs < 0);
    }
}
