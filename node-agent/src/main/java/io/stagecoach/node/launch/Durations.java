package io.stagecoach.node.launch;

import java.time.Duration;

final class Durations
{
    private Durations()
    {
    }

    static String format(final long millis)
    {
        if (millis % 1000 == 0)
        {
            return (millis / 1000) + " s";
        }
        return millis < 1000 ? millis + " ms" : String.format("%.1f s", millis / 1000.0);
    }

    static String format(final Duration duration)
    {
        return format(duration.toMillis());
    }
}
