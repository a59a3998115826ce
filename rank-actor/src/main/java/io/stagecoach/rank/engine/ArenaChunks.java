package io.stagecoach.rank.engine;

import io.stagecoach.rank.memory.SharedArena;
import org.agrona.UnsafeApi;

/**
 * The receiving side of a pipelined arena transfer: copies or unpacks the bytes a same-node sender has packed into
 * its shared arena so far, then those it packs next, until all arrived. The sender counts them in the long
 * {@link SharedArena#PROGRESS_BYTES} before the packed bytes (a release store after each chunk).
 */
final class ArenaChunks
{
    /** Takes bytes as they arrive: from an address, at an offset of the packed message, so many. */
    @FunctionalInterface
    interface Sink
    {
        void take(long srcAddress, long packedOffset, int lengthBytes);
    }

    private ArenaChunks()
    {
    }

    /**
     * Hands every packed byte to the sink, in order, as the sender's count passes it. Waiting, it spins and yields
     * the core every {@link AwaitIdler#YIELD_EVERY_NS} (the sender may share it).
     *
     * @param sink        where the bytes go.
     * @param senderRank  for the error.
     * @param source      address of the packed bytes in this process's mapping of the sender's arena.
     * @param packedBytes how many.
     * @param timeoutNs   longest time the count may stand still.
     * @throws IllegalStateException naming the sender, the message's length and how far the count got, when it
     *                               stood still for {@code timeoutNs}.
     */
    static void follow(
        final Sink sink, final int senderRank, final long source, final long packedBytes, final long timeoutNs)
    {
        final long progressAddress = source - SharedArena.PROGRESS_BYTES;
        long done = 0;
        long stalledSinceNs = 0;
        long yieldedNs = 0;
        while (done < packedBytes)
        {
            final long ready = Math.min(UnsafeApi.getLongVolatile(null, progressAddress), packedBytes);
            if (ready > done)
            {
                sink.take(source + done, done, (int)(ready - done));
                done = ready;
                stalledSinceNs = 0;
                continue;
            }
            final long nowNs = System.nanoTime();
            if (stalledSinceNs == 0)
            {
                stalledSinceNs = nowNs;
                yieldedNs = nowNs;
            }
            else if (nowNs - stalledSinceNs > timeoutNs)
            {
                throw new IllegalStateException("rank " + senderRank + " stopped packing a message of " +
                    packedBytes + " bytes into its shared arena at " + done + " bytes for " +
                    (nowNs - stalledSinceNs) / 1_000_000 + " ms");
            }
            if (nowNs - yieldedNs >= AwaitIdler.YIELD_EVERY_NS)
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
