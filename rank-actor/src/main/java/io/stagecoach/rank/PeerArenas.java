package io.stagecoach.rank;

import java.io.File;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;

import org.agrona.BufferUtil;
import org.agrona.IoUtil;

/**
 * The shared send arenas of this rank's same-node peers, mapped read-only on the first message that names one and
 * kept until close. Used on the engine's thread only.
 */
final class PeerArenas implements AutoCloseable
{
    private final String directory;
    private final MappedByteBuffer[] mappings;
    private final long[] pids;

    PeerArenas(final String directory, final int size)
    {
        this.directory = directory;
        this.mappings = new MappedByteBuffer[size];
        this.pids = new long[size];
    }

    /**
     * @param rank        the sender.
     * @param pid         its process, as its RTS gives it.
     * @param offset      where its packed bytes start in its arena.
     * @param lengthBytes how many.
     * @return the address of those bytes in this process.
     * @throws IllegalStateException naming the file where the arena cannot be mapped, or naming the range and the
     *                               arena's length where the range lies outside it.
     */
    long address(final int rank, final long pid, final long offset, final long lengthBytes)
    {
        MappedByteBuffer mapping = mappings[rank];
        if (mapping == null || pids[rank] != pid)
        {
            if (mapping != null)
            {
                IoUtil.unmap(mapping);
                mappings[rank] = null;
            }
            final File file = SharedArena.file(directory, rank, pid);
            try
            {
                mapping = IoUtil.mapExistingFile(file, FileChannel.MapMode.READ_ONLY, "shared arena of rank " + rank);
            }
            catch (final RuntimeException ex)
            {
                throw new IllegalStateException("rank " + rank + "'s shared arena " + file + " cannot be mapped: " +
                    ex.getMessage(), ex);
            }
            mappings[rank] = mapping;
            pids[rank] = pid;
        }
        if (offset < SharedArena.FIRST_OFFSET || lengthBytes < 0 || offset + lengthBytes > mapping.capacity())
        {
            throw new IllegalStateException("rank " + rank + " named bytes [" + offset + ", " + (offset + lengthBytes) +
                ") of its shared arena, which is " + mapping.capacity() + " bytes long");
        }
        return BufferUtil.address(mapping) + offset;
    }

    public void close()
    {
        for (int i = 0; i < mappings.length; i++)
        {
            if (mappings[i] != null)
            {
                IoUtil.unmap(mappings[i]);
                mappings[i] = null;
            }
        }
    }
}
