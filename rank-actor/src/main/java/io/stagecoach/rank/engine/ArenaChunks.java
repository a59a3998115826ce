package io.stagecoach.rank.engine;

import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

import io.stagecoach.rank.memory.SharedArena;
import org.agrona.UnsafeApi;

/**
 * The receiving side of a pipelined arena transfer: copies or unpacks the bytes a same-node sender has packed into
 * its shared arena so far, then those it packs next, until all arrived. The sender counts them in the long
 * {@link SharedArena#PROGRESS_BYTES} before the packed bytes (a release store after each chunk), or stores
 * {@link #FAILED} there when it cannot go on.
 */
final class ArenaChunks
{
    /** Takes bytes as they arrive: from an address, at an offset of the packed message, so many. */
    @FunctionalInterface
    interface Sink
    {
        void take(long srcAddress, long packedOffset, int lengthBytes);
    }

    /** The count of a sender that failed to pack the message. */
    static final long FAILED = -1;
    private static final long PARK_NS = 100_000;

    private ArenaChunks()
    {
    }

    /**
     * Hands every packed byte to the sink, in order, as the sender's count passes it. Waiting, it spins and yields
     * the core every {@link AwaitIdler#YIELD_EVERY_NS} (the sender may share it); once the count stood still for
     * {@code checkEveryNs} it asks whether the sender is still there, and waits on, parking between looks, as long
     * as it is: a sender paused by its garbage collector, a page fault storm or a stop signal goes on where it was.
     *
     * @param sink         where the bytes go.
     * @param senderRank   for the error.
     * @param senderAlive  whether the sender's process is still there.
     * @param source       address of the packed bytes in this process's mapping of the sender's arena.
     * @param packedBytes  how many.
     * @param checkEveryNs how long the count may stand still before the sender is looked at, and between looks.
     * @throws IllegalStateException naming the sender, the message's length and how far the count got, when the
     *                               sender failed to pack the message or its process is gone.
     */
    static void follow(
        final Sink sink, final int senderRank, final BooleanSupplier senderAlive, final long source,
        final long packedBytes, final long checkEveryNs)
    {
        final long progressAddress = source - SharedArena.PROGRESS_BYTES;
        long done = 0;
        long stalledSinceNs = 0;
        long yieldedNs = 0;
        boolean slow = false;
        while (done < packedBytes)
        {
            final long count = UnsafeApi.getLongVolatile(null, progressAddress);
            if (count == FAILED)
            {
                throw new IllegalStateException("rank " + senderRank + " failed to pack a message of " + packedBytes +
                    " bytes into its shared arena at " + done + " bytes");
            }
            final long ready = Math.min(count, packedBytes);
            if (ready > done)
            {
                sink.take(source + done, done, (int)(ready - done));
                done = ready;
                stalledSinceNs = 0;
                slow = false;
                continue;
            }
            final long nowNs = System.nanoTime();
            if (stalledSinceNs == 0)
            {
                stalledSinceNs = nowNs;
                yieldedNs = nowNs;
            }
            else if (nowNs - stalledSinceNs > checkEveryNs)
            {
                if (!senderAlive.getAsBoolean())
                {
                    throw new IllegalStateException("rank " + senderRank + " stopped packing a message of " +
                        packedBytes + " bytes into its shared arena at " + done + " bytes, and its process is gone");
                }
                stalledSinceNs = nowNs;
                slow = true;
            }
            if (slow)
            {
                LockSupport.parkNanos(PARK_NS);
            }
            else if (nowNs - yieldedNs >= AwaitIdler.YIELD_EVERY_NS)
            {
                yieldedNs = nowNs;
                Thread.yield();
            }
            else
            {
                Thread.onSpinWait();
            }
        }
    }
}
