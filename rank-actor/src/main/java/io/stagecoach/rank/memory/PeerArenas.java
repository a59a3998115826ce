package io.stagecoach.rank.memory;

import java.io.File;
import java.io.IOException;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.LinkOption;
import java.nio.file.StandardOpenOption;

import org.agrona.BufferUtil;
import org.agrona.IoUtil;

/**
 * The shared send arenas of this rank's same-node peers, mapped read-only on the first message that names one and
 * kept until close; and the slot regions of their stage pipelines, mapped writable (so that the device can register
 * them) on the first large device message that names one. Neither is opened through a symbolic link: the node's
 * directory is private (its parent is checked), and a link there is refused. Used on the engine's thread only.
 */
public final class PeerArenas implements AutoCloseable
{
    private final String directory;
    private final MappedByteBuffer[] mappings;
    private final long[] pids;
    private final MappedByteBuffer[] slotRegions;
    private final long[] slotRegionKeys;

    public PeerArenas(final String directory, final int size)
    {
        this.directory = directory;
        this.mappings = new MappedByteBuffer[size];
        this.pids = new long[size];
        this.slotRegions = new MappedByteBuffer[size];
        this.slotRegionKeys = new long[size * 2];
    }

    /**
     * @param rank   the sender.
     * @param pid    its process, as its RTS gives it.
     * @param region the slot region its RTS names ({@link io.stagecoach.protocol.wire.EnvelopeFlyweight#slotRegion}).
     * @param offset of the region in the sender's arena.
     * @param length of the region.
     * @return the address of the region in this process.
     * @throws IllegalStateException naming the file where the region cannot be mapped.
     */
    public long slotRegion(final int rank, final long pid, final long region, final long offset, final long length)
    {
        final MappedByteBuffer known = slotRegions[rank];
        if (known != null && slotRegionKeys[2 * rank] == pid && slotRegionKeys[2 * rank + 1] == region)
        {
            return BufferUtil.address(known);
        }
        if (known != null)
        {
            IoUtil.unmap(known);
            slotRegions[rank] = null;
        }
        final File file = SharedArena.file(directory, rank, pid);
        if (offset < SharedArena.FIRST_OFFSET || (offset & 4095) != 0 || length <= 0)
        {
            throw new IllegalStateException("rank " + rank + " named a slot region [" + offset + ", " +
                (offset + length) + ") of " + file + " that is not page aligned or empty");
        }
        try (FileChannel channel = FileChannel.open(file.toPath(), StandardOpenOption.READ, StandardOpenOption.WRITE,
            LinkOption.NOFOLLOW_LINKS))
        {
            if (offset + length > channel.size())
            {
                throw new IllegalStateException("rank " + rank + " named bytes [" + offset + ", " + (offset + length) +
                    ") of its shared arena, which is " + channel.size() + " bytes long");
            }
            slotRegions[rank] = channel.map(FileChannel.MapMode.READ_WRITE, offset, length);
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException("rank " + rank + "'s slot region in " + file + " cannot be mapped: " + ex,
                ex);
        }
        slotRegionKeys[2 * rank] = pid;
        slotRegionKeys[2 * rank + 1] = region;
        return BufferUtil.address(slotRegions[rank]);
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
    public long address(final int rank, final long pid, final long offset, final long lengthBytes)
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
            try (FileChannel channel = FileChannel.open(file.toPath(), StandardOpenOption.READ,
                LinkOption.NOFOLLOW_LINKS))
            {
                mapping = channel.map(FileChannel.MapMode.READ_ONLY, 0, channel.size());
            }
            catch (final IOException | RuntimeException ex)
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
            if (slotRegions[i] != null)
            {
                IoUtil.unmap(slotRegions[i]);
                slotRegions[i] = null;
            }
        }
    }
}
