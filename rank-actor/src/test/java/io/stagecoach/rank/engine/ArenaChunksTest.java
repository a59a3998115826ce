package io.stagecoach.rank.engine;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.stagecoach.rank.memory.SharedArena;
import org.agrona.BufferUtil;
import org.agrona.UnsafeApi;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ArenaChunksTest
{
    private static final int PACKED_BYTES = 100_000;

    private final UnsafeBuffer buffer =
        new UnsafeBuffer(BufferUtil.allocateDirectAligned(SharedArena.PROGRESS_BYTES + PACKED_BYTES, 64));
    private final long progressAddress = buffer.addressOffset();
    private final long source = progressAddress + SharedArena.PROGRESS_BYTES;

    @Test
    void shouldHandOverEveryChunkInOrderWhileTheSenderPacks() throws Exception
    {
        final UnsafeBuffer received = new UnsafeBuffer(new byte[PACKED_BYTES]);
        final long[] nextOffset = { 0 };
        final CompletableFuture<Void> sender = CompletableFuture.runAsync(() ->
        {
            for (int offset = 0; offset < PACKED_BYTES; offset += 7_000)
            {
                final int length = Math.min(7_000, PACKED_BYTES - offset);
                for (int i = offset; i < offset + length; i++)
                {
                    buffer.putByte(SharedArena.PROGRESS_BYTES + i, (byte)(i * 31));
                }
                UnsafeApi.putLongRelease(null, progressAddress, offset + length);
                Thread.yield();
            }
        });
        ArenaChunks.follow((srcAddress, packedOffset, lengthBytes) ->
        {
            assertEquals(nextOffset[0], packedOffset, "chunks arrive in order, none twice");
            assertEquals(source + packedOffset, srcAddress);
            received.putBytes((int)packedOffset, new UnsafeBuffer(srcAddress, lengthBytes), 0, lengthBytes);
            nextOffset[0] += lengthBytes;
        }, 1, source, PACKED_BYTES, TimeUnit.SECONDS.toNanos(10));
        sender.get(10, TimeUnit.SECONDS);
        assertEquals(PACKED_BYTES, nextOffset[0]);
        for (int i = 0; i < PACKED_BYTES; i++)
        {
            assertEquals((byte)(i * 31), received.getByte(i), "byte " + i);
        }
    }

    @Test
    void shouldFailNamingTheSenderAndHowFarItGotWhenItStopsPacking()
    {
        UnsafeApi.putLongRelease(null, progressAddress, 16_384);
        final long[] taken = { 0 };
        final long startNs = System.nanoTime();
        final IllegalStateException ex = assertThrows(IllegalStateException.class, () -> ArenaChunks.follow(
            (srcAddress, packedOffset, lengthBytes) -> taken[0] += lengthBytes, 3, source, PACKED_BYTES,
            TimeUnit.MILLISECONDS.toNanos(200)));
        final long waitedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNs);
        assertEquals(16_384, taken[0], "what was packed before the stop is handed over");
        assertTrue(ex.getMessage().contains("rank 3") && ex.getMessage().contains(PACKED_BYTES + " bytes") &&
            ex.getMessage().contains("at 16384 bytes"), ex.getMessage());
        assertTrue(waitedMs >= 200 && waitedMs < 5_000, "gave up after " + waitedMs + " ms");
    }
}
