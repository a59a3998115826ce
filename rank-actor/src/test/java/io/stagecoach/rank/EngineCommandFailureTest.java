package io.stagecoach.rank;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;

import io.stagecoach.protocol.datatype.Datatype;
import io.stagecoach.rank.engine.ProgressEngine;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class EngineCommandFailureTest
{
    @TempDir
    Path directory;

    @Test
    void shouldKeepAThrowingCommandFromTheSubmitterAndFromTheCommandsAfterIt()
    {
        try (LocalJob job = LocalJob.start(directory, 2, context -> { }))
        {
            final ProgressEngine engine = job.rank(0).engine();
            assertDoesNotThrow(() -> engine.submit(locked -> { throw new IllegalStateException("planted"); }));
            final AtomicBoolean ranAfter = new AtomicBoolean();
            engine.submit(locked -> ranAfter.set(true));
            final long deadlineNs = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (!ranAfter.get() && System.nanoTime() < deadlineNs)
            {
                engine.progress();
                Thread.onSpinWait();
            }
            assertTrue(ranAfter.get(), "a command after the throwing one runs (at once, or on the next duty cycle " +
                "when the progress thread held the engine)");

            final ByteBuffer out = ByteBuffer.allocateDirect(64).putLong(0, 42);
            final ByteBuffer in = ByteBuffer.allocateDirect(64);
            final Request receive = job.rank(1).irecv(in, 8, Datatype.LONG, 0, 1);
            job.rank(0).send(out, 8, Datatype.LONG, 1, 1);
            receive.await(Duration.ofSeconds(20));
            assertEquals(42, in.getLong(0));
        }
    }
}
