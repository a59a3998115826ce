package io.stagecoach.device;

import java.util.Arrays;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The completion thread sleeps while no completion is awaited (its duty cycles stay flat), wakes at once when an event
 * is handed to it, and keeps polling while one is awaited.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CompletionAgentTest
{
    @Test
    void shouldSleepWhileNothingIsAwaitedAndWakeWhenWorkArrives() throws Exception
    {
        try (DeviceRuntime runtime = DeviceRuntime.open(EmulatedDeviceTest.emulatedContext());
            DeviceStream stream = runtime.createStream(0);
            DeviceEvent event = runtime.createEvent(0);
            Allocation a = runtime.allocate(0, 1 << 16);
            Allocation b = runtime.allocate(0, 1 << 16))
        {
            Thread.sleep(50);
            final long before = runtime.completionDutyCycles();
            Thread.sleep(300);
            final long idleCycles = runtime.completionDutyCycles() - before;
            assertTrue(idleCycles <= 5, "completion thread ran " + idleCycles + " duty cycles in 300 ms with nothing " +
                "awaited");

            final int rounds = 21;
            final long[] latenciesNs = new long[rounds];
            long sleeps = runtime.completionSleeps();
            for (int i = 0; i < rounds; i++)
            {
                awaitSleeps(runtime, sleeps++);
                stream.copy(b.address(), a.address(), 4096);
                event.record(stream);
                final long start = System.nanoTime();
                runtime.whenComplete(event).get(10, TimeUnit.SECONDS);
                latenciesNs[i] = System.nanoTime() - start;
            }
            Arrays.sort(latenciesNs);
            final long medianNs = latenciesNs[rounds / 2];
            assertTrue(medianNs < TimeUnit.MILLISECONDS.toNanos(20), "median completion after a sleep took " +
                medianNs / 1000 + " us");
        }
    }

    @Test
    void shouldKeepPollingWhileACompletionIsAwaited() throws Exception
    {
        final long bytes = 96L << 20;
        try (DeviceRuntime runtime = DeviceRuntime.open(EmulatedDeviceTest.emulatedContext()
                .completionSleepAfterIdleNs(0));
            DeviceStream stream = runtime.createStream(0);
            DeviceEvent event = runtime.createEvent(0);
            Allocation a = runtime.allocate(0, bytes);
            Allocation b = runtime.allocate(0, bytes))
        {
            awaitSleeps(runtime, 1);
            for (int i = 0; i < 6; i++)
            {
                stream.copy(i % 2 == 0 ? b.address() : a.address(), i % 2 == 0 ? a.address() : b.address(), bytes);
            }
            event.record(stream);
            final long sleepsBefore = runtime.completionSleeps();
            final long before = runtime.completionDutyCycles();
            final long start = System.nanoTime();
            runtime.whenComplete(event).get(30, TimeUnit.SECONDS);
            final long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            final long cycles = runtime.completionDutyCycles() - before;
            assertTrue(cycles >= 5, "completion thread ran " + cycles + " duty cycles in " + elapsedMs +
                " ms while an event was awaited");
            assertTrue(runtime.completionSleeps() - sleepsBefore <= 1, "completion thread slept while an event was " +
                "awaited");
            awaitSleeps(runtime, sleepsBefore + 1);
        }
    }

    private static void awaitSleeps(final DeviceRuntime runtime, final long sleeps) throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (runtime.completionSleeps() < sleeps)
        {
            if (System.nanoTime() > deadline)
            {
                fail("completion thread went to sleep " + runtime.completionSleeps() + " times, expected " + sleeps);
            }
            Thread.sleep(1);
        }
    }
}
