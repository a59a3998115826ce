package io.stagecoach.device.cuda;

import java.util.function.Consumer;

import jcuda.driver.CUgraphExec;

/**
 * A set-associative cache of launches keyed by (direction, buffers, count, byte range, completion signal), never
 * allocating on a hit.
 * A full set evicts round robin; the evicted launch is handed to a consumer that releases its graph.
 */
final class LaunchCache
{
    static final int WAYS = 4;

    static final class Launch
    {
        final boolean pack;
        final long typed;
        final long count;
        final long packedOffset;
        final long lengthBytes;
        final long packed;
        final long signal;
        KernelPlan plan;
        CUgraphExec graph;

        Launch(final boolean pack, final long typed, final long count, final long packedOffset, final long lengthBytes,
            final long packed, final long signal)
        {
            this.signal = signal;
            this.pack = pack;
            this.typed = typed;
            this.count = count;
            this.packedOffset = packedOffset;
            this.lengthBytes = lengthBytes;
            this.packed = packed;
        }

        boolean matches(final boolean pack, final long typed, final long count, final long packedOffset,
            final long lengthBytes, final long packed, final long signal)
        {
            return this.pack == pack && this.typed == typed && this.count == count &&
                this.packedOffset == packedOffset && this.lengthBytes == lengthBytes && this.packed == packed &&
                this.signal == signal;
        }
    }

    private final Launch[] entries;
    private final int[] victims;
    private final int setMask;
    private final Consumer<Launch> onEvict;

    LaunchCache(final int capacity, final Consumer<Launch> onEvict)
    {
        final int sets = Math.max(1, Integer.highestOneBit(Math.max(WAYS, capacity) / WAYS));
        this.entries = new Launch[sets * WAYS];
        this.victims = new int[sets];
        this.setMask = sets - 1;
        this.onEvict = onEvict;
    }

    int capacity()
    {
        return entries.length;
    }

    Launch find(final boolean pack, final long typed, final long count, final long packedOffset, final long lengthBytes,
        final long packed, final long signal)
    {
        final int base = setOf(pack, typed, count, packedOffset, lengthBytes, packed, signal) * WAYS;
        for (int way = 0; way < WAYS; way++)
        {
            final Launch launch = entries[base + way];
            if (launch != null && launch.matches(pack, typed, count, packedOffset, lengthBytes, packed, signal))
            {
                return launch;
            }
        }
        return null;
    }

    void add(final Launch launch)
    {
        final int set = setOf(launch.pack, launch.typed, launch.count, launch.packedOffset, launch.lengthBytes,
            launch.packed, launch.signal);
        final int base = set * WAYS;
        for (int way = 0; way < WAYS; way++)
        {
            if (entries[base + way] == null)
            {
                entries[base + way] = launch;
                return;
            }
        }
        final int way = victims[set];
        victims[set] = (way + 1) % WAYS;
        final Launch evicted = entries[base + way];
        entries[base + way] = launch;
        onEvict.accept(evicted);
    }

    void clear()
    {
        for (int i = 0; i < entries.length; i++)
        {
            if (entries[i] != null)
            {
                onEvict.accept(entries[i]);
                entries[i] = null;
            }
        }
    }

    private int setOf(final boolean pack, final long typed, final long count, final long packedOffset,
        final long lengthBytes, final long packed, final long signal)
    {
        long hash = pack ? 0x9E3779B97F4A7C15L : 0x632BE59BD9B4E019L;
        hash = mix(hash ^ typed);
        hash = mix(hash ^ packed);
        hash = mix(hash ^ count);
        hash = mix(hash ^ packedOffset);
        hash = mix(hash ^ lengthBytes);
        hash = mix(hash ^ signal);
        return (int)(hash ^ (hash >>> 32)) & setMask;
    }

    private static long mix(final long value)
    {
        long h = value * 0xBF58476D1CE4E5B9L;
        h ^= h >>> 31;
        return h * 0x94D049BB133111EBL;
    }
}
