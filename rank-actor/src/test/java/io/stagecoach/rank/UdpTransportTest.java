package io.stagecoach.rank;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.time.Duration;

import io.stagecoach.pipeline.transport.aeron.PeerAddress;
import io.stagecoach.protocol.datatype.Datatype;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Ranks on two "nodes" of 127.0.0.1: ranks 0 and 1 share node a (IPC), rank 2 is on node b (UDP). The UDP MTU is
 * the default 1408 bytes, so eager messages above it are fragmented by Aeron and reassembled.
 */
class UdpTransportTest
{
    private static final Duration TIMEOUT = Duration.ofSeconds(20);

    @TempDir
    static Path directory;

    private static LocalJob job;

    @BeforeAll
    static void start()
    {
        final int portBase = 21_000 + (int)(ProcessHandle.current().pid() % 20_000);
        job = LocalJob.start(directory, 3,
            rank -> new PeerAddress(rank < 2 ? "a" : "b", "127.0.0.1:" + (portBase + rank)),
            context -> context.eagerThresholdBytes(16 * 1024));
    }

    @AfterAll
    static void stop()
    {
        job.close();
    }

    @ParameterizedTest(name = "{0} -> {1}, {2} bytes")
    @CsvSource({ "0, 2, 8", "2, 0, 8", "1, 2, 1400", "2, 1, 5000", "0, 2, 16384", "2, 0, 16385",
        "1, 2, 3000000", "2, 1, 3000000", "0, 1, 3000000" })
    void shouldExchangeMessagesAcrossNodes(final int from, final int to, final int bytes)
    {
        final ByteBuffer out = ByteBuffer.allocateDirect(bytes).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < bytes; i++)
        {
            out.put(i, (byte)(i * 31 + from));
        }
        final ByteBuffer in = ByteBuffer.allocateDirect(bytes);
        final Request receive = job.rank(to).irecv(in, bytes, Datatype.BYTE, from, 3);
        job.rank(from).send(out, bytes, Datatype.BYTE, to, 3);
        assertEquals(bytes, receive.await(TIMEOUT).count());
        assertEquals(out, in);
    }
}
