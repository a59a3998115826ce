package io.stagecoach.pipeline.trace;

import java.io.IOException;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import io.stagecoach.protocol.host.PrivateDirectory;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.OneToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;

/**
 * The layout of a rank's live trace file, {@code rank-<rank>.stagelive} in the live folder: a ring in shared memory
 * (a file of the job's folder, mapped by the rank and by the process that shows the trace) into which the rank's
 * drain thread copies its stage and transfer records as it drains them, and from which the other process reads them
 * while the job runs. An Agrona {@link OneToOneRingBuffer}: the rank's drain thread is its only producer, the reader
 * its only consumer. A record that finds the ring full is dropped and counted in the header, so a reader that falls
 * behind costs the rank nothing but those records. Little endian:
 * <pre>
 * header:  0 magic "STAGELIV" (written last: a reader skips a file without it)   8 version (int, 1)
 *         12 ring capacity (int)   16 rank (int)   20 record length (int, 48)   24 dropped records (long)
 *         32 wall clock ns minus System.nanoTime() (long)   40 pid (long)   48-63 reserved
 * ring:   64 the ring's capacity, then Agrona's trailer
 * </pre>
 */
public final class LiveTraceFile
{
    /** Bytes before the ring. */
    public static final int HEADER_LENGTH = 64;
    /** Version of the layout. */
    public static final int VERSION = 1;
    /** Default capacity of the ring: 1 MiB, about 18,000 records. */
    public static final int DEFAULT_CAPACITY_BYTES = 1024 * 1024;
    /** File names start with this. */
    public static final String PREFIX = "rank-";
    /** File names end with this. */
    public static final String SUFFIX = ".stagelive";

    /** "STAGELIV" read as a little-endian long. */
    static final long MAGIC = new UnsafeBuffer("STAGELIV".getBytes(StandardCharsets.US_ASCII))
        .getLong(0, StageRecord.ORDER);
    static final int MAGIC_OFFSET = 0;
    static final int VERSION_OFFSET = 8;
    static final int CAPACITY_OFFSET = 12;
    static final int RANK_OFFSET = 16;
    static final int RECORD_LENGTH_OFFSET = 20;
    static final int DROPPED_OFFSET = 24;
    static final int EPOCH_OFFSET_OFFSET = 32;
    static final int PID_OFFSET = 40;

    private LiveTraceFile()
    {
    }

    /**
     * @param directory the live folder.
     * @param rank      a rank.
     * @return the rank's live file in it.
     */
    public static Path of(final Path directory, final int rank)
    {
        return directory.resolve(PREFIX + rank + SUFFIX);
    }

    /**
     * @param file a path.
     * @return whether its name is that of a live trace file.
     */
    public static boolean isLiveFileName(final Path file)
    {
        final String name = file.getFileName().toString();
        return name.startsWith(PREFIX) && name.endsWith(SUFFIX) && name.length() > PREFIX.length() + SUFFIX.length();
    }

    static int fileLength(final int capacityBytes)
    {
        return HEADER_LENGTH + capacityBytes + RingBufferDescriptor.TRAILER_LENGTH;
    }

    static MappedByteBuffer map(final FileChannel channel, final int lengthBytes) throws IOException
    {
        return channel.map(FileChannel.MapMode.READ_WRITE, 0, lengthBytes);
    }

    static FileChannel create(final Path file) throws IOException
    {
        return PrivateDirectory.createFile(file);
    }
}
