package io.stagecoach.rank;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.time.Duration;

import io.stagecoach.protocol.datatype.Datatype;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;

class PointToPointTest
{
    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    @TempDir
    static Path directory;

    private static LocalJob job;

    @BeforeAll
    static void start()
    {
        job = LocalJob.start(directory, 2, context -> context.eagerThresholdBytes(1024));
    }

    @AfterAll
    static void stop()
    {
        job.close();
    }

    @Test
    void shouldSendAndReceiveEagerMessage()
    {
        final ByteBuffer out = ByteBuffer.allocateDirect(64).order(ByteOrder.LITTLE_ENDIAN);
        final ByteBuffer in = ByteBuffer.allocateDirect(64).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < 16; i++)
        {
            out.putInt(i * 4, i * 7);
        }
        final Request receive = job.rank(1).irecv(in, 16, Datatype.INT, 0, 5);
        final Status sent = job.rank(0).isend(out, 16, Datatype.INT, 1, 5).await(TIMEOUT);
        final Status status = receive.await(TIMEOUT);
        assertEquals(16, sent.count());
        assertEquals(0, status.source());
        assertEquals(5, status.tag());
        assertEquals(16, status.count());
        for (int i = 0; i < 16; i++)
        {
            assertEquals(i * 7, in.getInt(i * 4));
        }
    }

    @Test
    void shouldSendAndReceiveRendezvousMessage()
    {
        final int count = 300_000;
        final ByteBuffer out = ByteBuffer.allocateDirect(count * 8).order(ByteOrder.LITTLE_ENDIAN);
        final ByteBuffer in = ByteBuffer.allocateDirect(count * 8).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < count; i++)
        {
            out.putLong(i * 8, i * 31L + 7);
        }
        final Request send = job.rank(1).isend(out, count, Datatype.LONG, 0, 9);
        final Status status = job.rank(0).recv(in, count, Datatype.LONG, 1, 9);
        send.await(TIMEOUT);
        assertEquals(count, status.count());
        for (int i = 0; i < count; i++)
        {
            assertEquals(i * 31L + 7, in.getLong(i * 8));
        }
    }
}
