package io.stagecoach.rank.memory;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;

import io.stagecoach.pipeline.PackedHostBuffer;
import io.stagecoach.protocol.host.PrivateDirectory;
import org.agrona.BufferUtil;
import org.agrona.IoUtil;

/**
 * This rank's shared send arena: a file in the node's shared-memory directory that ranks of the node map, into
 * which a scattered message is packed whole so that a same-node receiver unpacks it straight out of the mapping
 * (one copy on each side, no system call), where reading another process's memory costs a system call and its
 * page walks. Buffers come in power-of-two size classes from {@link HostBufferPool#MIN_CLASS_BYTES}, carved from the
 * arena once and reused after release; an arena that is full hands out nothing, and the message takes the other
 * path. Offsets start after a first page, so that 0 is never one. Thread-safe.
 */
public final class SharedArena implements AutoCloseable
{
    /** Offset of the first buffer. */
    public static final int FIRST_OFFSET = 4096;
    /**
     * Bytes before a message's packed bytes in its buffer: the first long counts the bytes packed so far, so that the
     * receiver unpacks what is there while the sender packs the rest.
     */
    public static final int PROGRESS_BYTES = 64;

    private final File file;
    private final MappedByteBuffer mapping;
    private final long baseAddress;
    private final long lengthBytes;
    private final ArrayList<ArrayDeque<Long>> free = new ArrayList<>(Integer.SIZE);
    private final HashMap<Long, PackedHostBuffer> applicationBuffers = new HashMap<>();
    private long nextOffset = FIRST_OFFSET;
    private boolean closed;

    private SharedArena(final File file, final MappedByteBuffer mapping, final long lengthBytes)
    {
        this.file = file;
        this.mapping = mapping;
        this.baseAddress = BufferUtil.address(mapping);
        this.lengthBytes = lengthBytes;
        for (int i = 0; i < Integer.SIZE; i++)
        {
            free.add(new ArrayDeque<>());
        }
    }

    /**
     * @param directory   the node's shared-memory directory (the media driver's).
     * @param rank        this rank.
     * @param pid         this process.
     * @param lengthBytes the arena's length, more than {@link #FIRST_OFFSET} and at most {@link Integer#MAX_VALUE}.
     * @return the arena, its file created, mode 0600 (sparse: pages are used as buffers are first written).
     */
    public static SharedArena create(final String directory, final int rank, final long pid, final long lengthBytes)
    {
        if (lengthBytes <= FIRST_OFFSET || lengthBytes > Integer.MAX_VALUE)
        {
            throw new IllegalArgumentException("shared arena of " + lengthBytes + " bytes is outside (" +
                FIRST_OFFSET + ", " + Integer.MAX_VALUE + "]");
        }
        final File file = file(directory, rank, pid);
        try (FileChannel channel = PrivateDirectory.createFile(file.toPath()))
        {
            return new SharedArena(file, channel.map(FileChannel.MapMode.READ_WRITE, 0, lengthBytes), lengthBytes);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot create the shared arena " + file + ": " + ex, ex);
        }
    }

    /**
     * Removes the arena file a rank's process left behind: one killed, or ended without closing its communicator,
     * leaves it in the node's directory, where a node agent's long-lived one would keep its pages in memory for as
     * long as the agent runs. For whoever started the process, once it has ended.
     *
     * @param directory the node's directory (the ranks' Aeron directory).
     * @param rank      the rank.
     * @param pid       the process id of the rank's ended process.
     * @return whether a file was there and is gone.
     * @throws IOException when it cannot be removed.
     */
    public static boolean deleteLeftBy(final String directory, final int rank, final long pid) throws IOException
    {
        return Files.deleteIfExists(file(directory, rank, pid).toPath());
    }

    /**
     * @return the arena file of a rank's process in a node's directory.
     */
    static File file(final String directory, final int rank, final long pid)
    {
        return new File(directory, "stagecoach-arena-" + rank + "-" + pid + ".shm");
    }

    /**
     * @param bytes at least 0.
     * @return a buffer of at least that capacity in the arena, released back to it; null when the arena has no room
     * (or is closed).
     */
    synchronized PackedHostBuffer acquire(final long bytes)
    {
        if (closed || bytes > lengthBytes - FIRST_OFFSET)
        {
            return null;
        }
        final int sizeClass = HostBufferPool.sizeClass(bytes);
        Long offset = free.get(sizeClass).pollFirst();
        if (offset == null)
        {
            final long classBytes = 1L << sizeClass;
            if (nextOffset + classBytes > lengthBytes)
            {
                return null;
            }
            offset = nextOffset;
            nextOffset += classBytes;
        }
        final long taken = offset;
        return new PackedHostBuffer(baseAddress + taken, bytes, () -> release(sizeClass, taken));
    }

    /**
     * Memory the application asked for to send from (MPI_Alloc_mem): a buffer of the arena seen as a direct buffer in
     * native order, until {@link #freeForApplication}.
     *
     * @param bytes in [1, {@link Integer#MAX_VALUE}].
     * @return the buffer, or null when the arena has no room (or is closed).
     */
    synchronized ByteBuffer allocateForApplication(final int bytes)
    {
        final PackedHostBuffer taken = acquire(bytes);
        if (taken == null)
        {
            return null;
        }
        final int offset = (int)(taken.address() - baseAddress);
        final ByteBuffer view = mapping.duplicate();
        view.limit(offset + bytes).position(offset);
        applicationBuffers.put(taken.address(), taken);
        return view.slice().order(ByteOrder.nativeOrder());
    }

    /**
     * @param address where a buffer of {@link #allocateForApplication} starts.
     * @return true when it was one and is back in the arena, false when the address is not such a buffer (any more).
     */
    synchronized boolean freeForApplication(final long address)
    {
        final PackedHostBuffer taken = applicationBuffers.remove(address);
        if (taken == null)
        {
            return false;
        }
        taken.release();
        return true;
    }

    /**
     * Sets a region aside for good, page aligned (the stage pipeline's shared slots); the first call takes the region
     * at {@link #FIRST_OFFSET}.
     *
     * @param bytes of the region.
     * @return its address, or 0 when the arena has no room.
     */
    public synchronized long reserve(final long bytes)
    {
        final long offset = (nextOffset + 4095) & -4096L;
        if (closed || bytes <= 0 || offset + bytes > lengthBytes)
        {
            return 0;
        }
        nextOffset = offset + bytes;
        return baseAddress + offset;
    }

    /**
     * @return the offset in the arena of an address in it, or -1 when the address lies outside.
     */
    public long offsetOf(final long address)
    {
        final long offset = address - baseAddress;
        return offset >= FIRST_OFFSET && offset < lengthBytes ? offset : -1;
    }

    private synchronized void release(final int sizeClass, final long offset)
    {
        free.get(sizeClass).addFirst(offset);
    }

    /**
     * Deletes the file; the mapping stays until collected, since a receiver of this process may not be done with
     * it, and peers keep theirs until they close.
     */
    public synchronized void close()
    {
        if (!closed)
        {
            closed = true;
            IoUtil.deleteIfExists(file);
        }
    }

    public String toString()
    {
        return "SharedArena{" + file + ", " + lengthBytes + " bytes, " + mapping.capacity() + " mapped}";
    }
}
