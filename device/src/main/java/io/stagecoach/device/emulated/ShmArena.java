package io.stagecoach.device.emulated;

import java.io.IOException;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import java.util.TreeMap;

import io.stagecoach.device.DeviceException;
import io.stagecoach.protocol.host.PrivateDirectory;
import org.agrona.BufferUtil;
import org.agrona.IoUtil;

/**
 * A sparse shared-memory file (mode 0600) mapped once, carved into allocations first fit. Its address range never serves anything
 * else while mapped, so any address inside it is either in a live allocation or plainly not.
 */
final class ShmArena implements AutoCloseable
{
    static final long ALIGNMENT = 256;

    private final Path file;
    private final String name;
    private final long capacityBytes;
    private final boolean keepFile;
    private final MappedByteBuffer mapping;
    private final long baseAddress;
    private final TreeMap<Long, Long> free = new TreeMap<>();
    private final TreeMap<Long, Long> used = new TreeMap<>();
    private long usedBytes;

    private ShmArena(final Path file, final String name, final long capacityBytes, final boolean keepFile,
        final MappedByteBuffer mapping)
    {
        this.file = file;
        this.name = name;
        this.capacityBytes = capacityBytes;
        this.keepFile = keepFile;
        this.mapping = mapping;
        this.baseAddress = BufferUtil.address(mapping);
        free.put(0L, capacityBytes);
    }

    static ShmArena create(final Path file, final String name, final long capacityBytes, final boolean keepFile)
    {
        try (FileChannel channel = PrivateDirectory.createFile(file))
        {
            final MappedByteBuffer mapping = channel.map(FileChannel.MapMode.READ_WRITE, 0, capacityBytes);
            if (!keepFile)
            {
                Files.deleteIfExists(file);
            }
            return new ShmArena(file, name, capacityBytes, keepFile, mapping);
        }
        catch (final IOException ex)
        {
            throw new DeviceException("cannot map " + capacityBytes + " bytes of " + file + " for " + name, ex);
        }
    }

    static MappedByteBuffer mapExisting(final Path file)
    {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE,
            LinkOption.NOFOLLOW_LINKS))
        {
            return channel.map(FileChannel.MapMode.READ_WRITE, 0, channel.size());
        }
        catch (final IOException ex)
        {
            throw new DeviceException("cannot map " + file + ": its owner freed it or exited", ex);
        }
    }

    long baseAddress()
    {
        return baseAddress;
    }

    boolean contains(final long address)
    {
        return address - baseAddress >= 0 && address - baseAddress < capacityBytes;
    }

    synchronized long allocate(final long lengthBytes)
    {
        final long rounded = (lengthBytes + ALIGNMENT - 1) & -ALIGNMENT;
        for (final Map.Entry<Long, Long> hole : free.entrySet())
        {
            if (hole.getValue() >= rounded)
            {
                final long offset = hole.getKey();
                free.remove(offset);
                if (hole.getValue() > rounded)
                {
                    free.put(offset + rounded, hole.getValue() - rounded);
                }
                used.put(offset, lengthBytes);
                usedBytes += rounded;
                return baseAddress + offset;
            }
        }
        throw new DeviceException("out of memory on " + name + ": " + lengthBytes + " bytes asked, " +
            (capacityBytes - usedBytes) + " of " + capacityBytes + " free (largest hole " + largestHole() + ")");
    }

    synchronized void free(final long address)
    {
        final long offset = address - baseAddress;
        final Long exact = used.remove(offset);
        if (exact == null)
        {
            throw new DeviceException("free of 0x" + Long.toHexString(address) + ": no allocation of " + name +
                " starts there");
        }
        final long length = (exact + ALIGNMENT - 1) & -ALIGNMENT;
        usedBytes -= length;
        long start = offset;
        long size = length;
        final Map.Entry<Long, Long> before = free.floorEntry(offset);
        if (before != null && before.getKey() + before.getValue() == offset)
        {
            free.remove(before.getKey());
            start = before.getKey();
            size += before.getValue();
        }
        final Long after = free.get(offset + length);
        if (after != null)
        {
            free.remove(offset + length);
            size += after;
        }
        free.put(start, size);
    }

    /**
     * @param address inside the arena.
     * @return {start address, length} of the live allocation holding it, or null.
     */
    synchronized long[] allocationAt(final long address)
    {
        final Map.Entry<Long, Long> entry = used.floorEntry(address - baseAddress);
        if (entry != null && address - baseAddress < entry.getKey() + entry.getValue())
        {
            return new long[] {baseAddress + entry.getKey(), entry.getValue()};
        }
        return null;
    }

    String name()
    {
        return name;
    }

    Path file()
    {
        return file;
    }

    @Override
    public void close()
    {
        IoUtil.unmap(mapping);
        if (keepFile)
        {
            try
            {
                Files.deleteIfExists(file);
            }
            catch (final IOException ignore)
            {
                // the shutdown sweep of a later process removes it
            }
        }
    }

    private long largestHole()
    {
        long largest = 0;
        for (final long size : free.values())
        {
            largest = Math.max(largest, size);
        }
        return largest;
    }
}
