package io.stagecoach.rank;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;

import io.stagecoach.pipeline.trace.StageTraceContext;
import io.stagecoach.protocol.datatype.Datatype;
import io.stagecoach.protocol.wire.EnvelopeFlyweight;
import io.stagecoach.rank.memory.SharedArena;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class StagecoachContextTest
{
    private static final int MIB = 1024 * 1024;

    @TempDir
    Path directory;

    private static StagecoachContext context()
    {
        return new StagecoachContext().rank(0).size(1).jobId("context-test").nodeName("node").useRendezvous(false);
    }

    @Test
    void shouldRejectAnEagerThresholdWhoseMessageExceedsTheLargestAeronMessageOfTheTerm()
    {
        final int limit = MIB / 8 - EnvelopeFlyweight.HEADER_LENGTH;
        final IllegalArgumentException error = assertThrows(IllegalArgumentException.class,
            () -> context().ipc(MIB, 65504).udp(MIB, 1408).eagerThresholdBytes(256 * 1024).conclude());
        assertTrue(error.getMessage().contains("eager threshold 262144 bytes"), error.getMessage());
        assertTrue(error.getMessage().contains("[0, " + limit + "]"), error.getMessage());
        assertTrue(error.getMessage().contains("stagecoach.ipc.term.length"), error.getMessage());
        assertEquals(limit, context().ipc(MIB, 65504).udp(MIB, 1408).eagerThresholdBytes(limit).conclude()
            .eagerThresholdBytes());
    }

    @Test
    void shouldRejectASharedArenaLengthOutsideItsLimitsAndAcceptZeroForNone()
    {
        final IllegalArgumentException error = assertThrows(IllegalArgumentException.class,
            () -> context().sharedArenaBytes(1000).conclude());
        assertTrue(error.getMessage().contains("shared arena of 1000 bytes") &&
            error.getMessage().contains("(" + SharedArena.FIRST_OFFSET + ", " + Integer.MAX_VALUE + "]"),
            error.getMessage());
        assertThrows(IllegalArgumentException.class, () -> context().sharedArenaBytes(1L << 32).conclude());
        assertEquals(0, context().sharedArenaBytes(0).conclude().engineSettings().sharedArenaBytes());
        assertEquals(StagecoachContext.DEFAULT_SHARED_ARENA_BYTES, context().conclude().sharedArenaBytes());
    }

    @Test
    void shouldRejectTimeoutsThatAreNotPositive()
    {
        assertEquals("close timeout must be positive, not PT0S", assertThrows(IllegalArgumentException.class,
            () -> context().closeTimeout(Duration.ZERO).conclude()).getMessage());
        assertEquals("connect timeout must be positive, not PT-1S", assertThrows(IllegalArgumentException.class,
            () -> context().connectTimeout(Duration.ofSeconds(-1)).conclude()).getMessage());
    }

    @Test
    void shouldKeepNoStageTraceUnlessAFolderIsGiven()
    {
        assertFalse(context().conclude().stageTraceContext().isEnabled());
    }

    @Test
    void shouldRefuseAWholeNumberSettingBeyondItsRangeInsteadOfWrappingIt()
    {
        System.setProperty("stagecoach.eager.threshold.bytes", "4294983680");
        try
        {
            assertEquals("setting stagecoach.eager.threshold.bytes = 4294983680 is outside [-2147483648, " +
                "2147483647]", assertThrows(IllegalArgumentException.class, StagecoachContext::new).getMessage());
        }
        finally
        {
            System.clearProperty("stagecoach.eager.threshold.bytes");
        }
    }

    @Test
    void shouldTakeTheStageTraceFolderAndRingFromTheSettings() throws IOException
    {
        final Path folder = Files.createDirectory(directory.resolve("trace"),
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        System.setProperty(StageTraceContext.DIRECTORY_PROPERTY, folder.toString());
        System.setProperty(StageTraceContext.RING_BYTES_PROPERTY, Integer.toString(MIB));
        final StagecoachContext context;
        try
        {
            context = context().rank(1).size(2).conclude();
        }
        finally
        {
            System.clearProperty(StageTraceContext.DIRECTORY_PROPERTY);
            System.clearProperty(StageTraceContext.RING_BYTES_PROPERTY);
        }

        final StageTraceContext trace = context.stageTraceContext().conclude();
        assertEquals(folder, trace.directory());
        assertEquals(1, trace.rank());
        assertEquals(MIB, trace.ringCapacityBytes());
        assertTrue(trace.isEnabled());
    }

    @Test
    void shouldRefuseAStageTraceFolderThatIsNotPrivateOrARingThatIsNoPowerOfTwo() throws IOException
    {
        final Path folder = Files.createDirectory(directory.resolve("open"),
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-x---")));

        final String message = assertThrows(IllegalStateException.class,
            () -> context().traceDirectory(folder).conclude()).getMessage();

        assertTrue(message.contains(folder + " is not a private folder") && message.contains("rwxr-x---"), message);
        assertThrows(IllegalArgumentException.class, () -> context().traceRingBytes(MIB + 1).conclude());
    }

    @Test
    void shouldTakeTheSmallerTermOfBothTransportsForTheEagerLimit()
    {
        final int limit = 4 * MIB / 8 - EnvelopeFlyweight.HEADER_LENGTH;
        context().ipc(4 * MIB, 65504).udp(4 * MIB, 1408).eagerThresholdBytes(256 * 1024).eagerWindowBytes(MIB)
            .conclude();
        final IllegalArgumentException error = assertThrows(IllegalArgumentException.class,
            () -> context().ipc(16 * MIB, 65504).udp(4 * MIB, 1408).eagerThresholdBytes(limit + 1)
                .eagerWindowBytes(4 * MIB).conclude());
        assertTrue(error.getMessage().contains("[0, " + limit + "]"), error.getMessage());
    }

    @Test
    void shouldSendAMessageOfTheLargestEagerThresholdEagerly()
    {
        final int limit = MIB / 8 - EnvelopeFlyweight.HEADER_LENGTH;
        try (LocalJob job = LocalJob.start(directory, 2,
            context -> context.eagerThresholdBytes(limit).eagerWindowBytes(MIB)))
        {
            final ByteBuffer out = ByteBuffer.allocateDirect(limit);
            for (int i = 0; i < limit; i++)
            {
                out.put(i, (byte)(i * 31 + 7));
            }
            final ByteBuffer in = ByteBuffer.allocateDirect(limit);
            final long eagerBefore = job.rank(0).engine().counters(1)[0];
            final Request receive = job.rank(1).irecv(in, limit, Datatype.BYTE, 0, 3);
            job.rank(0).isend(out, limit, Datatype.BYTE, 1, 3).await(Duration.ofSeconds(20));
            assertEquals(limit, receive.await(Duration.ofSeconds(20)).count());
            assertEquals(eagerBefore + 1, job.rank(0).engine().counters(1)[0]);
            assertEquals(out, in);
        }
    }
}
