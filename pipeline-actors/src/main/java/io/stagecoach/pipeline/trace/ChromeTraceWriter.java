package io.stagecoach.pipeline.trace;

import java.io.IOException;
import java.io.Writer;
import java.util.Map;

/**
 * Writes a Chrome trace (the Trace Event Format's JSON object form) as it goes, one event a line: metadata naming
 * processes and threads, and a complete event ({@code "ph":"X"}) per stage record, with {@code ts} and {@code dur} in
 * microseconds to the nanosecond. Ranks are processes with {@code pid} = rank + 1 (trace viewers treat pid 0 as the
 * kernel's); tracks are threads. Strings are escaped as JSON requires.
 */
public final class ChromeTraceWriter
{
    private final Writer out;
    private final StringBuilder line = new StringBuilder(256);
    private boolean firstEvent = true;

    /**
     * @param out where the JSON goes; buffered by the caller.
     */
    public ChromeTraceWriter(final Writer out)
    {
        this.out = out;
    }

    /**
     * @param rank a rank.
     * @return its process id in the trace.
     */
    public static int pid(final int rank)
    {
        return rank + 1;
    }

    /**
     * Starts the object and its event array.
     *
     * @throws IOException when the output fails.
     */
    public void begin() throws IOException
    {
        out.write("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n");
    }

    /**
     * Names a rank's process and places it in rank order.
     *
     * @param rank  the rank.
     * @param label shown beside the name (e.g. records dropped), or null.
     * @throws IOException when the output fails.
     */
    public void rank(final int rank, final String label) throws IOException
    {
        metadata("process_name", pid(rank), -1, "name", "rank " + rank);
        metadata("process_sort_index", pid(rank), -1, "sort_index", rank);
        if (null != label)
        {
            metadata("process_labels", pid(rank), -1, "labels", label);
        }
    }

    /**
     * Names a track of a rank and places it among the rank's tracks.
     *
     * @param rank      the rank.
     * @param tid       the track's thread id.
     * @param name      shown as the track's name.
     * @param sortIndex its place among the rank's tracks, lowest first.
     * @throws IOException when the output fails.
     */
    public void track(final int rank, final int tid, final String name, final int sortIndex) throws IOException
    {
        metadata("thread_name", pid(rank), tid, "name", name);
        metadata("thread_sort_index", pid(rank), tid, "sort_index", sortIndex);
    }

    /**
     * A complete event for one stage record on a track of its rank.
     *
     * @param record   the record.
     * @param tid      the track.
     * @param originNs subtracted from the record's times: the trace starts near 0.
     * @throws IOException when the output fails.
     */
    public void stage(final StageRecord record, final int tid, final long originNs) throws IOException
    {
        startEvent();
        line.append("{\"name\":");
        appendString(line, record.stage().name());
        line.append(",\"cat\":\"stage\",\"ph\":\"X\",\"pid\":").append(pid(record.rank()))
            .append(",\"tid\":").append(tid).append(",\"ts\":");
        appendMicros(line, record.startNs() - originNs);
        line.append(",\"dur\":");
        appendMicros(line, record.endNs() - record.startNs());
        line.append(",\"args\":{\"transfer\":").append(record.transferId())
            .append(",\"chunk\":").append(record.chunk())
            .append(",\"bytes\":").append(record.bytes())
            .append(",\"device\":").append(record.device()).append("}}");
        writeLine();
    }

    /**
     * Ends the event array and the object, after the trace's own data.
     *
     * @param otherData written as strings under {@code "otherData"}, in the map's order.
     * @throws IOException when the output fails.
     */
    public void end(final Map<String, String> otherData) throws IOException
    {
        line.setLength(0);
        line.append("\n],\"otherData\":{");
        boolean first = true;
        for (final Map.Entry<String, String> entry : otherData.entrySet())
        {
            line.append(first ? "" : ",");
            appendString(line, entry.getKey());
            line.append(':');
            appendString(line, entry.getValue());
            first = false;
        }
        line.append("}}\n");
        out.append(line);
        out.flush();
    }

    private void metadata(final String name, final int pid, final int tid, final String key, final Object value)
        throws IOException
    {
        startEvent();
        line.append("{\"name\":\"").append(name).append("\",\"ph\":\"M\",\"pid\":").append(pid);
        if (tid >= 0)
        {
            line.append(",\"tid\":").append(tid);
        }
        line.append(",\"args\":{\"").append(key).append("\":");
        if (value instanceof String)
        {
            appendString(line, (String)value);
        }
        else
        {
            line.append(value);
        }
        line.append("}}");
        writeLine();
    }

    private void startEvent()
    {
        line.setLength(0);
        line.append(firstEvent ? "" : ",\n");
        firstEvent = false;
    }

    private void writeLine() throws IOException
    {
        out.append(line);
    }

    /**
     * @param to    where the digits go.
     * @param nanos a duration in nanoseconds.
     */
    static void appendMicros(final StringBuilder to, final long nanos)
    {
        final long magnitude = Math.abs(nanos);
        final long fraction = magnitude % 1000;
        to.append(nanos < 0 ? "-" : "").append(magnitude / 1000).append('.');
        to.append(fraction < 100 ? (fraction < 10 ? "00" : "0") : "").append(fraction);
    }

    /**
     * @param to   where the JSON string goes.
     * @param text any text: quotes, backslashes and control characters are escaped.
     */
    static void appendString(final StringBuilder to, final String text)
    {
        to.append('"');
        for (int i = 0; i < text.length(); i++)
        {
            appendChar(to, text.charAt(i));
        }
        to.append('"');
    }

    private static void appendChar(final StringBuilder to, final char c)
    {
        switch (c)
        {
            case '"' -> to.append("\\\"");
            case '\\' -> to.append("\\\\");
            case '\n' -> to.append("\\n");
            case '\r' -> to.append("\\r");
            case '\t' -> to.append("\\t");
            default ->
            {
                if (c < 0x20 || c == 0x2028 || c == 0x2029)
                {
                    to.append(String.format("\\u%04x", (int)c));
                }
                else
                {
                    to.append(c);
                }
            }
        }
    }
}
