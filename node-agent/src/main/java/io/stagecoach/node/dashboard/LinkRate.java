package io.stagecoach.node.dashboard;

import java.util.Arrays;

/**
 * Bytes a peer link delivered, in buckets of {@link #BUCKET_NS} over the last {@link #BUCKETS} of them: the rate over
 * the last seconds, from fixed arrays.
 */
final class LinkRate
{
    static final long BUCKET_NS = 100_000_000L;
    static final int BUCKETS = 100;

    final int from;
    final int to;
    private final long[] bucketOf = new long[BUCKETS];
    private final long[] bytesIn = new long[BUCKETS];
    private long totalBytes;
    private long messages;
    private long firstNs;
    private long lastNs;

    LinkRate(final int from, final int to)
    {
        this.from = from;
        this.to = to;
        Arrays.fill(bucketOf, -1);
    }

    void add(final long atNs, final long bytes)
    {
        final long bucket = Math.floorDiv(atNs, BUCKET_NS);
        final int slot = Math.floorMod(bucket, BUCKETS);
        if (bucketOf[slot] != bucket)
        {
            bucketOf[slot] = bucket;
            bytesIn[slot] = 0;
        }
        bytesIn[slot] += bytes;
        totalBytes += bytes;
        firstNs = 0 == messages ? atNs : Math.min(firstNs, atNs);
        lastNs = 0 == messages ? atNs : Math.max(lastNs, atNs);
        messages++;
    }

    /**
     * @return bytes per second from the link's first delivery to its last: the rate a benchmark that kept the link
     * busy reports; 0 before two deliveries at different times.
     */
    double averageBytesPerSecond()
    {
        return lastNs > firstNs ? totalBytes / ((lastNs - firstNs) / 1e9) : 0;
    }

    /**
     * @param nowNs   the clock now.
     * @param windowNs the window, a whole number of buckets up to {@link #BUCKETS} - 1.
     * @return bytes per second over the window's complete buckets before the one now filling.
     */
    double bytesPerSecond(final long nowNs, final long windowNs)
    {
        final long current = Math.floorDiv(nowNs, BUCKET_NS);
        final int buckets = (int)Math.min(BUCKETS - 1, Math.max(1, windowNs / BUCKET_NS));
        long bytes = 0;
        for (long bucket = current - buckets; bucket < current; bucket++)
        {
            final int slot = Math.floorMod(bucket, BUCKETS);
            bytes += bucketOf[slot] == bucket ? bytesIn[slot] : 0;
        }
        return bytes / (buckets * (BUCKET_NS / 1e9));
    }

    long totalBytes()
    {
        return totalBytes;
    }

    long messages()
    {
        return messages;
    }
}
