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
 * The stage costs of a node's devices, measured once and kept in the user's private cache folder
 * ({@link NativeLibraryCache#directory()}, under {@code tuning/}): a file per device kind, device name and largest
 * chunk, written whole under a temporary name and renamed into place, mode 0600. A file that cannot be read or does
 * not parse is measured again.
 */
public final class StageCostCache
{
    private static final Logger LOG = LoggerFactory.getLogger(StageCostCache.class);
    private static final String[] KEYS =
        { "pack.fixed.ns", "pack.bytes.per.ns", "unpack.fixed.ns", "unpack.bytes.per.ns" };

    private StageCostCache()
    {
    }

    /**
     * @param runtime       the device layer.
     * @param device        the device.
     * @param maxChunkBytes the largest chunk.
     * @return the device's costs (with the arena wire), from the cache, or measured and then cached.
     */
    public static synchronized StageCosts costs(final DeviceRuntime runtime, final int device, final long maxChunkBytes)
    {
        final Path file = file(runtime, device, maxChunkBytes);
        final StageCosts cached = read(file);
        if (cached != null)
        {
            return cached;
        }
        try (FileChannel lock = lockFile(file.getParent()))
        {
            lock.lock();
            final StageCosts measuredMeanwhile = read(file);
            if (measuredMeanwhile != null)
            {
                return measuredMeanwhile;
            }
            final StageCosts measured = StageCostProbe.measure(runtime, device, maxChunkBytes);
            write(file, measured);
            return measured;
        }
        catch (final IOException ex)
        {
            LOG.debug("stage costs measured without the cache's lock: {}", ex.toString());
            return StageCostProbe.measure(runtime, device, maxChunkBytes);
        }
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

    static Path file(final DeviceRuntime runtime, final int device, final long maxChunkBytes)
    {
        final String name = (runtime.kind() + "-" + runtime.deviceName(device) + "-" + maxChunkBytes)
            .replaceAll("[^A-Za-z0-9._-]", "_");
        return NativeLibraryCache.directory().resolve("tuning").resolve(name + ".properties");
    }

    static StageCosts read(final Path file)
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
                parsed[i] = Double.parseDouble(values.getProperty(KEYS[i]));
                if (!(parsed[i] >= 0) || Double.isInfinite(parsed[i]))
                {
                    return null;
                }
            }
            return new StageCosts(parsed[0], parsed[1], StageCostProbe.ARENA_WIRE_FIXED_NS, Double.POSITIVE_INFINITY,
                parsed[2], parsed[3]);
        }
        catch (final IOException | RuntimeException ex)
        {
            return null;
        }
    }

    static void write(final Path file, final StageCosts costs)
    {
        final Properties values = new Properties();
        values.setProperty(KEYS[0], Double.toString(costs.packFixedNs()));
        values.setProperty(KEYS[1], Double.toString(costs.packBytesPerNs()));
        values.setProperty(KEYS[2], Double.toString(costs.unpackFixedNs()));
        values.setProperty(KEYS[3], Double.toString(costs.unpackBytesPerNs()));
        try
        {
            final Path folder = file.getParent();
            final Path temporary = Files.createTempFile(folder, ".costs", ".tmp",
                PosixFilePermissions.asFileAttribute(PrivateDirectory.FILE_MODE));
            try (Writer out = Files.newBufferedWriter(temporary, StandardCharsets.UTF_8))
            {
                values.store(out, "stage costs of one device, measured by StageCostProbe");
            }
            Files.move(temporary, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        }
        catch (final IOException | RuntimeException ex)
        {
            LOG.debug("stage costs not cached in {}: {}", file, ex.toString());
        }
    }
}
