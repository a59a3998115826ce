package io.stagecoach.pipeline.trace;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import io.stagecoach.protocol.host.PrivateDirectory;

/**
 * Configuration of a rank's {@link StageTracing}, Aeron style: setters return this, {@link #conclude()} validates.
 * Tracing is on when there is somewhere for records to go: a trace folder, a live folder, a handler of drained records
 * (a live view in the same process), or several.
 * <table>
 * <caption>Settings</caption>
 * <tr><th>setting</th><th>default</th><th>meaning</th></tr>
 * <tr><td>{@link #rank(int)}</td><td>none</td><td>the rank, stored in every record</td></tr>
 * <tr><td>{@link #directory(Path)}</td><td>none</td><td>the trace folder ({@value #DIRECTORY_VARIABLE} of
 * {@code stagecoach run --trace}): a private folder (0700, this user's) that receives {@code rank-<rank>.stagetrace}
 * </td></tr>
 * <tr><td>{@link #ringCapacityBytes(int)}</td><td>8 MiB</td><td>the ring: {@value #DEFAULT_RING_CAPACITY_BYTES}
 * bytes hold about 150,000 records</td></tr>
 * <tr><td>{@link #drainPeriodNs(long)}</td><td>10 ms</td><td>how long the drain thread sleeps when the ring is
 * empty (at most 1 s)</td></tr>
 * <tr><td>{@link #liveDirectory(Path)}</td><td>none</td><td>the live folder ({@value #LIVE_DIRECTORY_VARIABLE}
 * of {@code stagecoach run --dashboard}): a private folder that receives {@code rank-<rank>.stagelive}, a ring in
 * shared memory that a dashboard reads while the job runs ({@link LiveTraceFile})</td></tr>
 * <tr><td>{@link #liveRingCapacityBytes(int)}</td><td>1 MiB</td><td>the live file's ring, a power of two</td></tr>
 * <tr><td>{@link #recordHandler(StageRecordHandler)}</td><td>none</td><td>told of every drained record too, on the
 * drain thread</td></tr>
 * </table>
 */
public final class StageTraceContext
{
    /** The environment variable in which {@code stagecoach run --trace} names each rank's trace folder. */
    public static final String DIRECTORY_VARIABLE = "STAGECOACH_TRACE_DIR";
    /** The system property that names the trace folder; it takes precedence over the environment. */
    public static final String DIRECTORY_PROPERTY = "stagecoach.trace.dir";
    /** The environment variable in which {@code stagecoach run --dashboard} names each rank's live folder. */
    public static final String LIVE_DIRECTORY_VARIABLE = "STAGECOACH_TRACE_LIVE_DIR";
    /** The system property that names the live folder; it takes precedence over the environment. */
    public static final String LIVE_DIRECTORY_PROPERTY = "stagecoach.trace.live.dir";
    /** The system property of the live ring's capacity ({@code STAGECOACH_TRACE_LIVE_RING_BYTES}). */
    public static final String LIVE_RING_BYTES_PROPERTY = "stagecoach.trace.live.ring.bytes";
    /** The system property of the ring's capacity ({@code STAGECOACH_TRACE_RING_BYTES} in the environment). */
    public static final String RING_BYTES_PROPERTY = "stagecoach.trace.ring.bytes";
    /** Default capacity of the ring: 8 MiB, about 150,000 records. */
    public static final int DEFAULT_RING_CAPACITY_BYTES = 8 * 1024 * 1024;
    /** Default sleep of the drain thread while the ring is empty. */
    public static final long DEFAULT_DRAIN_PERIOD_NS = TimeUnit.MILLISECONDS.toNanos(10);
    /** Longest sleep of the drain thread: a close waits for the sleep to end. */
    public static final long MAX_DRAIN_PERIOD_NS = TimeUnit.SECONDS.toNanos(1);

    private int rank = -1;
    private Path directory;
    private int ringCapacityBytes = DEFAULT_RING_CAPACITY_BYTES;
    private long drainPeriodNs = DEFAULT_DRAIN_PERIOD_NS;
    private Path liveDirectory;
    private int liveRingCapacityBytes = LiveTraceFile.DEFAULT_CAPACITY_BYTES;
    private StageRecordHandler recordHandler;
    private boolean concluded;

    /**
     * Validates the settings.
     *
     * @return this.
     * @throws IllegalArgumentException naming the setting, its value and the limit.
     * @throws IllegalStateException    naming the folder when it is not private to this user.
     */
    public StageTraceContext conclude()
    {
        if (concluded)
        {
            return this;
        }
        if (rank < 0)
        {
            throw new IllegalArgumentException("stage trace rank " + rank + " is negative");
        }
        StageRing.checkCapacity(ringCapacityBytes);
        StageRing.checkCapacity(liveRingCapacityBytes);
        if (drainPeriodNs <= 0 || drainPeriodNs > MAX_DRAIN_PERIOD_NS)
        {
            throw new IllegalArgumentException("stage trace drain period " + drainPeriodNs + " ns is outside (0, " +
                MAX_DRAIN_PERIOD_NS + "]");
        }
        if (null != directory)
        {
            directory = PrivateDirectory.checkPrivate(directory.toAbsolutePath());
        }
        if (null != liveDirectory)
        {
            liveDirectory = PrivateDirectory.checkPrivate(liveDirectory.toAbsolutePath());
        }
        concluded = true;
        return this;
    }

    /**
     * @return whether records are kept: a folder, a live folder or a handler is set.
     */
    public boolean isEnabled()
    {
        return null != directory || null != liveDirectory || null != recordHandler;
    }

    /**
     * @param rank the rank, stored in every record.
     * @return this.
     */
    public StageTraceContext rank(final int rank)
    {
        this.rank = rank;
        return this;
    }

    /**
     * @return the rank.
     */
    public int rank()
    {
        return rank;
    }

    /**
     * @param directory the trace folder, private to this user, in which the rank creates
     *                  {@code rank-<rank>.stagetrace}; null for no file.
     * @return this.
     */
    public StageTraceContext directory(final Path directory)
    {
        this.directory = directory;
        return this;
    }

    /**
     * @return the trace folder, or null.
     */
    public Path directory()
    {
        return directory;
    }

    /**
     * @param directory the live folder, private to this user, in which the rank creates {@code rank-<rank>.stagelive}
     *                  for a dashboard to read while the job runs; null for none.
     * @return this.
     */
    public StageTraceContext liveDirectory(final Path directory)
    {
        this.liveDirectory = directory;
        return this;
    }

    /**
     * @return the live folder, or null.
     */
    public Path liveDirectory()
    {
        return liveDirectory;
    }

    /**
     * @param capacityBytes of the live file's ring, a power of two in [{@link StageRing#MIN_CAPACITY_BYTES},
     *                      {@link StageRing#MAX_CAPACITY_BYTES}]: records the reader has not taken when it is full
     *                      are dropped and counted.
     * @return this.
     */
    public StageTraceContext liveRingCapacityBytes(final int capacityBytes)
    {
        this.liveRingCapacityBytes = capacityBytes;
        return this;
    }

    /**
     * @return capacity of the live file's ring.
     */
    public int liveRingCapacityBytes()
    {
        return liveRingCapacityBytes;
    }

    /**
     * @param capacityBytes of the ring, a power of two in [{@link StageRing#MIN_CAPACITY_BYTES},
     *                      {@link StageRing#MAX_CAPACITY_BYTES}]; each record takes
     *                      {@link StageRing#RECORD_SLOT_BYTES}.
     * @return this.
     */
    public StageTraceContext ringCapacityBytes(final int capacityBytes)
    {
        this.ringCapacityBytes = capacityBytes;
        return this;
    }

    /**
     * @return capacity of the ring.
     */
    public int ringCapacityBytes()
    {
        return ringCapacityBytes;
    }

    /**
     * @param periodNs how long the drain thread sleeps when it found the ring empty, at most
     *                 {@link #MAX_DRAIN_PERIOD_NS}: records wait in the ring about that long, and a close waits for
     *                 the sleep to end.
     * @return this.
     */
    public StageTraceContext drainPeriodNs(final long periodNs)
    {
        this.drainPeriodNs = periodNs;
        return this;
    }

    /**
     * @return how long the drain thread sleeps when it found the ring empty.
     */
    public long drainPeriodNs()
    {
        return drainPeriodNs;
    }

    /**
     * @param handler told of every drained record on the drain thread, after the file (if any) got it; null for
     *                none.
     * @return this.
     */
    public StageTraceContext recordHandler(final StageRecordHandler handler)
    {
        this.recordHandler = handler;
        return this;
    }

    /**
     * @return the extra handler of drained records, or null.
     */
    public StageRecordHandler recordHandler()
    {
        return recordHandler;
    }

    public String toString()
    {
        return "StageTraceContext{rank=" + rank + ", directory=" + directory + ", liveDirectory=" + liveDirectory +
            ", ringCapacityBytes=" + ringCapacityBytes + ", drainPeriodNs=" + drainPeriodNs + ", recordHandler=" + recordHandler + "}";
    }
}
