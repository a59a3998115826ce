package io.stagecoach.node.launch;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The launcher's wait for a rank's last output: as long as it is being written to a slow reader, and not for a pipe
 * that a process left behind holds open without writing.
 */
@Timeout(30)
class OutputJoinTest
{
    @Test
    void shouldWaitForOutputThatASlowReaderTakesLongAfterTheRankEnded() throws Exception
    {
        final ByteArrayOutputStream taken = new ByteArrayOutputStream();
        final OutputStream slow = new OutputStream()
        {
            public void write(final int b)
            {
                taken.write(b);
            }

            public void write(final byte[] bytes, final int offset, final int length) throws IOException
            {
                pause(60);
                taken.write(bytes, offset, length);
            }
        };
        final StringBuilder lines = new StringBuilder();
        for (int i = 0; i < 20; i++)
        {
            lines.append("line ").append(i).append('\n');
        }
        final OutputForwarder forwarder = new OutputForwarder(
            new java.io.ByteArrayInputStream(lines.toString().getBytes(StandardCharsets.UTF_8)),
            new PrintStream(slow, false, StandardCharsets.UTF_8), "");
        final Thread thread = new Thread(forwarder);
        thread.start();

        assertTrue(RankProcess.joinWhileBusy(thread, forwarder, 300), "it waited while lines were written");
        assertEquals(lines.toString(), taken.toString(StandardCharsets.UTF_8), "every line, none lost");
    }

    @Test
    void shouldGiveUpOnAPipeHeldOpenWithoutOutput() throws Exception
    {
        final PipedOutputStream heldOpen = new PipedOutputStream();
        final InputStream pipe = new PipedInputStream(heldOpen);
        final OutputForwarder forwarder = new OutputForwarder(pipe, new PrintStream(new ByteArrayOutputStream(),
            false, StandardCharsets.UTF_8), "");
        final Thread thread = new Thread(forwarder);
        thread.setDaemon(true);
        thread.start();
        final long startNs = System.nanoTime();

        assertFalse(RankProcess.joinWhileBusy(thread, forwarder, 300));
        assertTrue(System.nanoTime() - startNs < 5_000_000_000L, "gave up after a silent wait");
        heldOpen.close();
    }

    private static void pause(final long millis) throws IOException
    {
        try
        {
            Thread.sleep(millis);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IOException(ex);
        }
    }
}
