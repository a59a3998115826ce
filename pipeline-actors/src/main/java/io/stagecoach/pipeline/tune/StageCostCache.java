package io.stagecoach.pipeline.tune;

import java.io.IOException;
import java.io.Reader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Properties;
import java.util.Set;

import io.stagecoach.device.DeviceRuntime;
import io.stagecoach.protocol.host.NativeLibraryCache;
import io.stagecoach.protocol.host.PrivateDirectory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The costs of a node's devices ({@link DeviceCosts}: the stage pipeline's stages, host memory's copy throughput,
 * the device work of the one-sided and eager paths), measured once and kept in the user's private cache folder
 * ({@link NativeLibraryCache#directory()}, under {@code tuning/}): a file per device kind, device name and largest
 * chunk, written whole under a temporary name and renamed into place, mode 0600. A file that cannot be read, does not
 * parse or lacks a cost (one written before that cost was measured) is measured again, every cost of it.
 */
public final class StageCostCache
{
    private static final Logger LOG = LoggerFactory.getLogger(StageCostCache.class);
    private static final String[] KEYS =
        { "pack.fixed.ns", "pack.bytes.per.ns", "unpack.fixed.ns", "unpack.bytes.per.ns", "stream.wire.bytes.per.ns",
            "copy.fixed.ns", "copy.bytes.per.ns", "kernel.fixed.ns", "kernel.bytes.per.ns", "inline.pack.fixed.ns",
            "inline.unpack.fixed.ns" };

    private StageCostCache()
    {
    }

    /**
     * @param runtime       the device layer.
     * @param device        the device.
     * @param maxChunkBytes the largest chunk.
     * @return the device's costs, from the user's cache folder, or measured and then cached there.
     */
    public static DeviceCosts deviceCosts(final DeviceRuntime runtime, final int device, final long maxChunkBytes)
    {
        return deviceCosts(runtime, device, maxChunkBytes, defaultFolder(), false);
    }

    /**
     * @param runtime       the device layer.
     * @param device        the device.
     * @param maxChunkBytes the largest chunk.
     * @param folder        the cache folder, created private (0700) where missing.
     * @param remeasure     whether to measure (and cache) even where the cache holds the costs.
     * @return the device's costs, from the cache, or measured and then cached.
     */
    public static synchronized DeviceCosts deviceCosts(
        final DeviceRuntime runtime, final int device, final long maxChunkBytes, final Path folder,
        final boolean remeasure)
    {
        final Path file = file(folder, runtime, device, maxChunkBytes);
        final DeviceCosts cached = remeasure ? null : read(file);
        if (cached != null)
        {
            return cached;
        }
        try (FileChannel lock = lockFile(folder))
        {
            lock.lock();
            final DeviceCosts measuredMeanwhile = remeasure ? null : read(file);
            if (measuredMeanwhile != null)
            {
                return measuredMeanwhile;
            }
            final DeviceCosts measured = measure(runtime, device, maxChunkBytes);
            write(file, measured);
            return measured;
        }
        catch (final IOException ex)
        {
            LOG.debug("device costs measured without the cache's lock: {}", ex.toString());
            return measure(runtime, device, maxChunkBytes);
        }
    }

    /**
     * @return the folder the costs are cached in by default: {@code tuning/} of the user's private cache folder.
     */
    public static Path defaultFolder()
    {
        return NativeLibraryCache.directory().resolve("tuning");
    }

    /**
     * @param folder        the cache folder.
     * @param runtime       the device layer.
     * @param device        the device.
     * @param maxChunkBytes the largest chunk.
     * @return the costs cached for the device, or null where none are (or not all of them).
     */
    public static DeviceCosts cached(
        final Path folder, final DeviceRuntime runtime, final int device, final long maxChunkBytes)
    {
        return read(file(folder, runtime, device, maxChunkBytes));
    }

    /**
     * @return the file that holds the costs of a device in a cache folder.
     */
    public static Path file(final Path folder, final DeviceRuntime runtime, final int device, final long maxChunkBytes)
    {
        final String name = (runtime.kind() + "-" + runtime.deviceName(device) + "-" + maxChunkBytes)
            .replaceAll("[^A-Za-z0-9._-]", "_");
        return folder.resolve(name + ".properties");
    }

    private static DeviceCosts measure(final DeviceRuntime runtime, final int device, final long maxChunkBytes)
    {
        final StageCosts stages = StageCostProbe.measure(runtime, device, maxChunkBytes);
        final double streamWireBytesPerNs = StageCostProbe.streamWireBytesPerNs(maxChunkBytes);
        return new DeviceCosts(stages, streamWireBytesPerNs, PathCostProbe.measure(runtime, device, maxChunkBytes));
    }

    /**
     * The lock that lets one process of the user measure a device while the others of the node wait for its result:
     * two measuring at once would slow each other down.
     */
    private static FileChannel lockFile(final Path folder) throws IOException
    {
        if (!Files.isDirectory(folder))
        {
            Files.createDirectories(folder, PosixFilePermissions.asFileAttribute(PrivateDirectory.DIRECTORY_MODE));
        }
        return FileChannel.open(folder.resolve(".lock"), Set.of(StandardOpenOption.CREATE, StandardOpenOption.WRITE,
            LinkOption.NOFOLLOW_LINKS), PosixFilePermissions.asFileAttribute(PrivateDirectory.FILE_MODE));
    }

    static DeviceCosts read(final Path file)
    {
        if (!Files.isRegularFile(file))
        {
            return null;
        }
        final Properties values = new Properties();
        try (Reader in = Files.newBufferedReader(file, StandardCharsets.UTF_8))
        {
            values.load(in);
            final double[] parsed = new double[KEYS.length];
            for (int i = 0; i < KEYS.length; i++)
            {
                final String value = values.getProperty(KEYS[i]);
                if (value == null)
                {
                    return null;
                }
                parsed[i] = Double.parseDouble(value);
                if (!(parsed[i] >= 0) || Double.isInfinite(parsed[i]))
                {
                    return null;
                }
            }
            return new DeviceCosts(new StageCosts(parsed[0], parsed[1], StageCostProbe.ARENA_WIRE_FIXED_NS,
                Double.POSITIVE_INFINITY, parsed[2], parsed[3]), parsed[4],
                new PathCosts(parsed[5], parsed[6], parsed[7], parsed[8], parsed[9], parsed[10]));
        }
        catch (final IOException | RuntimeException ex)
        {
            return null;
        }
    }

    static void write(final Path file, final DeviceCosts costs)
    {
        final StageCosts stages = costs.stages();
        final PathCosts paths = costs.paths();
        final double[] written = { stages.packFixedNs(), stages.packBytesPerNs(), stages.unpackFixedNs(),
            stages.unpackBytesPerNs(), costs.streamWireBytesPerNs(), paths.copyFixedNs(), paths.copyBytesPerNs(),
            paths.kernelFixedNs(), paths.kernelBytesPerNs(), paths.inlinePackFixedNs(), paths.inlineUnpackFixedNs() };
        final Properties values = new Properties();
        for (int i = 0; i < KEYS.length; i++)
        {
            values.setProperty(KEYS[i], Double.toString(written[i]));
        }
        try
        {
            final Path folder = file.getParent();
            final Path temporary = Files.createTempFile(folder, ".costs", ".tmp",
                PosixFilePermissions.asFileAttribute(PrivateDirectory.FILE_MODE));
            try (Writer out = Files.newBufferedWriter(temporary, StandardCharsets.UTF_8))
            {
                values.store(out, "costs of one device, measured by StageCostProbe and PathCostProbe");
            }
            Files.move(temporary, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        }
        catch (final IOException | RuntimeException ex)
        {
            LOG.debug("device costs not cached in {}: {}", file, ex.toString());
        }
    }
}
