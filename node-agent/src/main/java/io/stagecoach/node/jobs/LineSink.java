package io.stagecoach.node.jobs;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;

/**
 * An output stream that hands on each complete line (without its end); a line longer than {@link #MAX_LINE_BYTES}
 * is handed on in pieces of that size.
 */
final class LineSink extends OutputStream
{
    /** The longest piece of a line handed on at once. */
    static final int MAX_LINE_BYTES = 64 * 1024;

    private final ByteArrayOutputStream line = new ByteArrayOutputStream();
    private final Consumer<String> lines;

    private LineSink(final Consumer<String> lines)
    {
        this.lines = lines;
    }

    /**
     * @param lines what takes each line.
     * @return a print stream over a sink, flushing at each line.
     */
    static PrintStream printStream(final Consumer<String> lines)
    {
        return new PrintStream(new LineSink(lines), true, StandardCharsets.UTF_8);
    }

    public synchronized void write(final int b)
    {
        if (b == '\n')
        {
            emit();
            return;
        }
        line.write(b);
        if (line.size() >= MAX_LINE_BYTES)
        {
            emit();
        }
    }

    public synchronized void write(final byte[] bytes, final int offset, final int length)
    {
        for (int i = offset; i < offset + length; i++)
        {
            write(bytes[i]);
        }
    }

    public synchronized void close()
    {
        if (line.size() > 0)
        {
            emit();
        }
    }

    private void emit()
    {
        lines.accept(line.toString(StandardCharsets.UTF_8));
        line.reset();
    }
}
