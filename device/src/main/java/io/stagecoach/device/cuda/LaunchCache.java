package io.stagecoach.device.cuda;

import java.util.function.Consumer;

import jcuda.driver.CUgraphExec;

/**
 * A set-associative cache of launches keyed by (kind, buffers, counts, byte range, completion signal), never
 * allocating on a hit. A full set evicts round robin; the evicted launch is handed to a consumer that releases its
 * graph.
 */
final class LaunchCache
{
    static final int WAYS = 4;
    /** Kind of a launch: an unpack; its address is the typed buffer, its other address the packed one. */
    static final int UNPACK = 0;
    /** Kind of a launch: a pack; its address is the typed buffer, its other address the packed one. */
    static final int PACK = 1;
    /** Kind of a launch: a copy between two layouts, from its address and count to its other address and count. */
    static final int COPY = 2;

    static final class Launch
    {
        final int kind;
        final long address;
        final long count;
        final long otherAddress;
        final long otherCount;
        final long packedOffset;
        final long lengthBytes;
        final long signal;
        LaunchPlan plan;
        CUgraphExec graph;

        Launch(final int kind, final long address, final long count, final long otherAddress, final long otherCount,
            final long packedOffset, final long lengthBytes, final long signal)
        {
            this.kind = kind;
            this.address = address;
            this.count = count;
            this.otherAddress = otherAddress;
            this.otherCount = otherCount;
            this.packedOffset = packedOffset;
            this.lengthBytes = lengthBytes;
            this.signal = signal;
        }

        boolean matches(final int kind, final long address, final long count, final long otherAddress,
            final long otherCount, final long packedOffset, final long lengthBytes, final long signal)
        {
            return this.kind == kind && this.address == address && this.count == count &&
                this.otherAddress == otherAddress && this.otherCount == otherCount &&
                this.packedOffset == packedOffset && this.lengthBytes == lengthBytes && this.signal == signal;
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

    Launch find(final int kind, final long address, final long count, final long otherAddress, final long otherCount,
        final long packedOffset, final long lengthBytes, final long signal)
    {
        final int set = setOf(kind, address, count, otherAddress, otherCount, packedOffset, lengthBytes, signal);
        final int base = set * WAYS;
        for (int way = 0; way < WAYS; way++)
        {
            final Launch launch = entries[base + way];
            if (launch != null &&
                launch.matches(kind, address, count, otherAddress, otherCount, packedOffset, lengthBytes, signal))
            {
                return launch;
            }
        }
        return null;
    }

    void add(final Launch launch)
    {
        final int set = setOf(launch.kind, launch.address, launch.count, launch.otherAddress, launch.otherCount,
            launch.packedOffset, launch.lengthBytes, launch.signal);
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

    private int setOf(final int kind, final long address, final long count, final long otherAddress,
        final long otherCount, final long packedOffset, final long lengthBytes, final long signal)
    {
        long hash = 0x9E3779B97F4A7C15L * (kind + 1);
        hash = mix(hash ^ address);
        hash = mix(hash ^ otherAddress);
        hash = mix(hash ^ count);
        hash = mix(hash ^ otherCount);
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
