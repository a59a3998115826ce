package io.stagecoach.pipeline.trace;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;

import org.agrona.concurrent.UnsafeBuffer;

/**
 * The file a rank drains its stage records into, {@code rank-<rank>.stagetrace} in the trace folder, mode 0600: a
 * header of {@link #HEADER_LENGTH} bytes, then records of {@link StageRecord#LENGTH} bytes in the order they were
 * drained (roughly the order their stages ended), little endian:
 * <pre>
 *   0  magic              8 bytes, "STAGETRC"
 *   8  version            int, 1
 *  12  record length      int, 48
 *  16  rank               int
 *  20  reserved           int, 0
 *  24  dropped records    long: records the ring had no room for, as of the last drain
 *  32  epoch offset ns    long: wall clock (ns since 1970) minus System.nanoTime(), at creation
 *  40  pid                long
 * </pre>
 * A rank killed while it writes may leave part of a record at the end; readers ignore it.
 */
public final class StageTraceFile
{
    /** Bytes of the header. */
    public static final int HEADER_LENGTH = 48;
    /** The version this code writes and reads. */
    public static final int VERSION = 1;
    /** Start of the name of every rank's file. */
    public static final String PREFIX = "rank-";
    /** End of the name of every rank's file. */
    public static final String SUFFIX = ".stagetrace";

    static final byte[] MAGIC = "STAGETRC".getBytes(StandardCharsets.US_ASCII);
    static final int VERSION_OFFSET = 8;
    static final int RECORD_LENGTH_OFFSET = 12;
    static final int RANK_OFFSET = 16;
    static final int DROPPED_OFFSET = 24;
    static final int EPOCH_OFFSET_OFFSET = 32;
    static final int PID_OFFSET = 40;

    private StageTraceFile()
    {
    }

    /**
     * @param directory the trace folder.
     * @param rank      a rank.
     * @return the rank's file in it.
     */
    public static Path of(final Path directory, final int rank)
    {
        return directory.resolve(PREFIX + rank + SUFFIX);
    }

    /**
     * @param file a path.
     * @return whether its name is that of a rank's trace file.
     */
    public static boolean isTraceFileName(final Path file)
    {
        final String name = String.valueOf(file.getFileName());
        return name.startsWith(PREFIX) && name.endsWith(SUFFIX);
    }

    static void encodeHeader(final UnsafeBuffer header, final int rank, final long epochOffsetNs, final long pid)
    {
        header.setMemory(0, HEADER_LENGTH, (byte)0);
        header.putBytes(0, MAGIC);
        header.putInt(VERSION_OFFSET, VERSION, StageRecord.ORDER);
        header.putInt(RECORD_LENGTH_OFFSET, StageRecord.LENGTH, StageRecord.ORDER);
        header.putInt(RANK_OFFSET, rank, StageRecord.ORDER);
        header.putLong(EPOCH_OFFSET_OFFSET, epochOffsetNs, StageRecord.ORDER);
        header.putLong(PID_OFFSET, pid, StageRecord.ORDER);
    }

    /**
     * @return wall clock nanoseconds since 1970 minus {@link System#nanoTime()}, now.
     */
    static long epochOffsetNs()
    {
        final Instant now = Instant.now();
        final long monotonicNs = System.nanoTime();
        return now.getEpochSecond() * 1_000_000_000L + now.getNano() - monotonicNs;
    }
}
