package io.stagecoach.node.launch;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Copies one output stream of a rank process to the launcher's, whole lines at a time so that lines of different
 * ranks never interleave, each prefixed with {@code [rank] } when output is tagged.
 */
final class OutputForwarder implements Runnable
{
    private static final int READ_BYTES = 8192;
    private static final int MAX_LINE_BYTES = 64 * 1024;

    private final InputStream in;
    private final PrintStream target;
    private final byte[] prefix;
    private byte[] line = new byte[256];
    private int lineLength;
    private volatile long readBytes;
    private volatile boolean writing;

    OutputForwarder(final InputStream in, final PrintStream target, final String prefix)
    {
        this.in = in;
        this.target = target;
        this.prefix = prefix.getBytes(StandardCharsets.UTF_8);
    }

    public void run()
    {
        final byte[] buffer = new byte[READ_BYTES];
        try (InputStream stream = in)
        {
            int read;
            while ((read = stream.read(buffer)) > 0)
            {
                readBytes += read;
                append(buffer, read);
            }
        }
        catch (final IOException ignore)
        {
            // the rank was ended and its pipe closed: what was read so far is flushed below
        }
        if (lineLength > 0)
        {
            emit(false);
        }
    }

    private void append(final byte[] buffer, final int length)
    {
        for (int i = 0; i < length; i++)
        {
            if (lineLength == line.length)
            {
                line = Arrays.copyOf(line, line.length * 2);
            }
            line[lineLength++] = buffer[i];
            if (buffer[i] == '\n' || lineLength == MAX_LINE_BYTES)
            {
                emit(buffer[i] == '\n');
            }
        }
    }

    /**
     * @return bytes read from the rank so far.
     */
    long readBytes()
    {
        return readBytes;
    }

    /**
     * @return whether it is writing a line, waiting for whoever reads the launcher's output to take it.
     */
    boolean isWriting()
    {
        return writing;
    }

    private void emit(final boolean terminated)
    {
        writing = true;
        synchronized (target)
        {
            target.write(prefix, 0, prefix.length);
            target.write(line, 0, lineLength);
            if (!terminated && prefix.length > 0)
            {
                target.write('\n');
            }
            target.flush();
        }
        writing = false;
        lineLength = 0;
    }
}
