package io.stagecoach.node.dashboard;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.stagecoach.pipeline.trace.StageRecordHandler;
import io.stagecoach.pipeline.trace.StageRing;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What the dashboard's tests share: draining a ring into a handler, and reading a counter of a page's update.
 */
public final class TraceFrames
{
    private TraceFrames()
    {
    }

    /**
     * @param ring    drained whole.
     * @param handler told of each record.
     */
    public static void drain(final StageRing ring, final StageRecordHandler handler)
    {
        while (ring.drain(handler, 4096) > 0)
        {
            assertTrue(ring.size() >= 0);
        }
    }

    /**
     * @param frame an update of {@link JobTrace#frame}.
     * @param name  a whole-number field of it.
     * @return its value, the first where several have the name.
     */
    public static long number(final String frame, final String name)
    {
        final Matcher matcher = Pattern.compile("\"" + name + "\":(\\d+)").matcher(frame);
        assertTrue(matcher.find(), name + " in " + frame);
        return Long.parseLong(matcher.group(1));
    }
}
