package io.stagecoach.rank.engine;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

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
        }, 1, () -> true, source, PACKED_BYTES, TimeUnit.SECONDS.toNanos(10));
        sender.get(10, TimeUnit.SECONDS);
        assertEquals(PACKED_BYTES, nextOffset[0]);
        for (int i = 0; i < PACKED_BYTES; i++)
        {
            assertEquals((byte)(i * 31), received.getByte(i), "byte " + i);
        }
    }

    @Test
    void shouldFailNamingTheSenderAndHowFarItGotWhenItStopsPackingAndItsProcessIsGone()
    {
        UnsafeApi.putLongRelease(null, progressAddress, 16_384);
        final long[] taken = { 0 };
        final long startNs = System.nanoTime();
        final IllegalStateException ex = assertThrows(IllegalStateException.class, () -> ArenaChunks.follow(
            (srcAddress, packedOffset, lengthBytes) -> taken[0] += lengthBytes, 3, () -> false, source, PACKED_BYTES,
            TimeUnit.MILLISECONDS.toNanos(200)));
        final long waitedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNs);
        assertEquals(16_384, taken[0], "what was packed before the stop is handed over");
        assertTrue(ex.getMessage().contains("rank 3") && ex.getMessage().contains(PACKED_BYTES + " bytes") &&
            ex.getMessage().contains("at 16384 bytes") && ex.getMessage().contains("process is gone"),
            ex.getMessage());
        assertTrue(waitedMs >= 200 && waitedMs < 5_000, "gave up after " + waitedMs + " ms");
    }

    /**
     * A sender that stops for longer than the interval between looks (a garbage collection, a stop signal) but is
     * still there: the receiver waits, parked, and takes the rest once it goes on.
     */
    @Test
    void shouldWaitForASenderThatPausesLongerThanTheCheckIntervalAndGoesOn() throws Exception
    {
        UnsafeApi.putLongRelease(null, progressAddress, 16_384);
        final int[] looks = { 0 };
        final CompletableFuture<Void> sender = CompletableFuture.runAsync(() ->
        {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(700));
            UnsafeApi.putLongRelease(null, progressAddress, PACKED_BYTES);
        });
        final long[] taken = { 0 };
        ArenaChunks.follow((srcAddress, packedOffset, lengthBytes) -> taken[0] += lengthBytes, 3,
            () -> ++looks[0] > 0, source, PACKED_BYTES, TimeUnit.MILLISECONDS.toNanos(100));
        sender.get(10, TimeUnit.SECONDS);
        assertEquals(PACKED_BYTES, taken[0], "every byte handed over after the pause");
        assertTrue(looks[0] >= 3, "looked at the sender " + looks[0] + " times during a 700 ms pause");
    }

    @Test
    void shouldFailAtOnceWhenTheSenderCouldNotPack()
    {
        UnsafeApi.putLongRelease(null, progressAddress, ArenaChunks.FAILED);
        final long startNs = System.nanoTime();
        final IllegalStateException ex = assertThrows(IllegalStateException.class, () -> ArenaChunks.follow(
            (srcAddress, packedOffset, lengthBytes) -> { }, 3, () -> true, source, PACKED_BYTES,
            TimeUnit.SECONDS.toNanos(10)));
        assertTrue(ex.getMessage().contains("rank 3 failed to pack"), ex.getMessage());
        assertTrue(System.nanoTime() - startNs < TimeUnit.SECONDS.toNanos(5));
    }
}
