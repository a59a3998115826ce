package io.stagecoach.device.emulated;

import java.io.IOException;
import java.nio.MappedByteBuffer;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import io.stagecoach.device.DeviceContext;
import io.stagecoach.device.DeviceException;
import io.stagecoach.device.MemoryRegion;
import io.stagecoach.device.MemoryType;
import io.stagecoach.protocol.host.PrivateDirectory;
import org.agrona.BufferUtil;
import org.agrona.IoUtil;

/**
 * The emulated counterpart of the CUDA driver: state shared by every runtime of the process, as libcuda's is. Each
 * device's memory is one shared-memory file, so that another process of this user can map it from an IPC handle;
 * pinned host memory is a second, private arena. The files (mode 0600) lie in a {@link PrivateDirectory} of this
 * driver in the configured folder, named by 64 random bits that IPC handles carry, deleted at exit and swept by a
 * later process when this one is killed. Host registrations and imported mappings are tracked for pointer queries.
 */
final class EmulatedDriver
{
    static final String FOLDER_PREFIX = PrivateDirectory.PREFIX + "emu-";

    private static final Map<String, EmulatedDriver> DRIVERS = new HashMap<>();

    private final long processId = ProcessHandle.current().pid();
    private final Path directory;
    private final Path folder;
    private final long folderToken;
    private final ShmArena[] devices;
    private final ShmArena pinned;
    private final TreeMap<Long, Long> registered = new TreeMap<>();
    private final List<Imported> imported = new ArrayList<>();
    private final Map<Long, Path> exports = new HashMap<>();

    private record Imported(MappedByteBuffer mapping, long baseAddress, long lengthBytes, int device, String file)
    {
    }

    private EmulatedDriver(final DeviceContext context)
    {
        this.directory = context.emulatedDirectory();
        PrivateDirectory.sweep(directory);
        this.folder = createFolder(directory);
        this.folderToken = HexFormat.fromHexDigitsToLong(
            folder.getFileName().toString().substring(FOLDER_PREFIX.length()));
        devices = new ShmArena[context.emulatedDeviceCount()];
        for (int d = 0; d < devices.length; d++)
        {
            devices[d] = ShmArena.create(deviceFile(folder, d), "emulated device " + d,
                context.emulatedMemoryBytes(), true);
        }
        pinned = ShmArena.create(folder.resolve("pinned"), "emulated pinned host memory",
            context.emulatedMemoryBytes(), false);
    }

    static synchronized EmulatedDriver forContext(final DeviceContext context)
    {
        final String key = context.emulatedDirectory() + "|" + context.emulatedDeviceCount() + "|" +
            context.emulatedMemoryBytes();
        EmulatedDriver driver = DRIVERS.get(key);
        if (driver == null)
        {
            driver = new EmulatedDriver(context);
            DRIVERS.put(key, driver);
            final EmulatedDriver created = driver;
            Runtime.getRuntime().addShutdownHook(new Thread(created::shutdown, "stagecoach-emulated-shutdown"));
        }
        return driver;
    }

    static Path deviceFile(final Path folder, final int device)
    {
        return folder.resolve("device-" + device);
    }

    private static Path exportMark(final Path folder, final int device, final long offsetBytes, final long number)
    {
        return folder.resolve("export-" + device + "-" + offsetBytes + "-" + number);
    }

    static Path folder(final Path directory, final long token)
    {
        return directory.resolve(FOLDER_PREFIX + HexFormat.of().toHexDigits(token));
    }

    long processId()
    {
        return processId;
    }

    long folderToken()
    {
        return folderToken;
    }

    int deviceCount()
    {
        return devices.length;
    }

    ShmArena device(final int device)
    {
        return devices[device];
    }

    ShmArena pinned()
    {
        return pinned;
    }

    synchronized void register(final long address, final long lengthBytes)
    {
        final Map.Entry<Long, Long> before = registered.floorEntry(address + lengthBytes - 1);
        if (before != null && before.getKey() + before.getValue() > address)
        {
            throw new DeviceException("host range [0x" + Long.toHexString(address) + ", +" + lengthBytes +
                ") overlaps a registered range [0x" + Long.toHexString(before.getKey()) + ", +" +
                before.getValue() + ")");
        }
        registered.put(address, lengthBytes);
    }

    synchronized void unregister(final long address)
    {
        if (registered.remove(address) == null)
        {
            throw new DeviceException("unregister of 0x" + Long.toHexString(address) + ": no registered range starts" +
                " there");
        }
    }

    synchronized MemoryRegion query(final long address)
    {
        for (int d = 0; d < devices.length; d++)
        {
            if (devices[d].contains(address))
            {
                final long[] allocation = devices[d].allocationAt(address);
                if (allocation == null)
                {
                    throw new DeviceException("address 0x" + Long.toHexString(address) + " lies in " +
                        devices[d].name() + " memory but in no live allocation");
                }
                return new MemoryRegion(MemoryType.DEVICE, d, allocation[0], allocation[1], allocation[0], false);
            }
        }
        if (pinned.contains(address))
        {
            final long[] allocation = pinned.allocationAt(address);
            if (allocation == null)
            {
                throw new DeviceException("address 0x" + Long.toHexString(address) + " lies in " + pinned.name() +
                    " but in no live allocation");
            }
            return new MemoryRegion(MemoryType.PINNED_HOST, -1, allocation[0], allocation[1], allocation[0], false);
        }
        final Map.Entry<Long, Long> registration = registered.floorEntry(address);
        if (registration != null && address - registration.getKey() < registration.getValue())
        {
            return new MemoryRegion(MemoryType.REGISTERED_HOST, -1, registration.getKey(), registration.getValue(),
                registration.getKey(), false);
        }
        for (final Imported mapping : imported)
        {
            if (address - mapping.baseAddress() >= 0 && address - mapping.baseAddress() < mapping.lengthBytes())
            {
                return new MemoryRegion(MemoryType.DEVICE, mapping.device(), mapping.baseAddress(),
                    mapping.lengthBytes(), mapping.baseAddress(), false);
            }
        }
        return null;
    }

    /**
     * Marks an allocation as exported under a number, in this process's folder, until it is freed: a process that
     * opens its handle later checks the mark, so that a handle of freed memory is refused, as CUDA refuses it.
     */
    synchronized void exported(final int device, final long allocationStart, final long number)
    {
        final Path mark = exportMark(folder, device, allocationStart - devices[device].baseAddress(), number);
        try
        {
            Files.createFile(mark, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        }
        catch (final FileAlreadyExistsException ignored)
        {
            // exported before under this number
        }
        catch (final IOException ex)
        {
            throw new DeviceException("cannot mark the export of 0x" + Long.toHexString(allocationStart) + ": " + ex,
                ex);
        }
        exports.put(allocationStart, mark);
    }

    /**
     * An allocation is freed: its export, if any, is no longer valid.
     */
    synchronized void freed(final long allocationStart)
    {
        final Path mark = exports.remove(allocationStart);
        if (mark != null)
        {
            try
            {
                Files.deleteIfExists(mark);
            }
            catch (final IOException ignored)
            {
                // the folder goes with the process
            }
        }
    }

    synchronized long openForeign(final long ownerProcessId, final long ownerFolderToken, final int device,
        final long offsetBytes, final long number)
    {
        final Path ownerFolder = folder(directory, ownerFolderToken);
        final String problem = PrivateDirectory.problemOf(ownerFolder);
        if (problem != null)
        {
            throw new DeviceException("cannot open the IPC handle of process " + ownerProcessId + ": " +
                ownerFolder + " is not a private folder of this user (" + problem + ")");
        }
        if (!Files.exists(exportMark(ownerFolder, device, offsetBytes, number)))
        {
            throw new DeviceException("cannot open the IPC handle of process " + ownerProcessId + ": the allocation " +
                "at offset " + offsetBytes + " of its emulated device " + device + " that it exported (export " +
                number + ") was freed");
        }
        final Path file = deviceFile(ownerFolder, device);
        final MappedByteBuffer mapping = ShmArena.mapExisting(file);
        final long base = BufferUtil.address(mapping);
        imported.add(new Imported(mapping, base, mapping.capacity(), Math.min(device, devices.length - 1),
            file.toString()));
        return base + offsetBytes;
    }

    synchronized void closeForeign(final long address)
    {
        for (int i = 0; i < imported.size(); i++)
        {
            final Imported mapping = imported.get(i);
            if (address - mapping.baseAddress() >= 0 && address - mapping.baseAddress() < mapping.lengthBytes())
            {
                imported.remove(i);
                IoUtil.unmap(mapping.mapping());
                return;
            }
        }
        throw new DeviceException("close of IPC mapping 0x" + Long.toHexString(address) + ": no such mapping");
    }

    private synchronized void shutdown()
    {
        for (final Imported mapping : imported)
        {
            IoUtil.unmap(mapping.mapping());
        }
        imported.clear();
        for (final ShmArena arena : devices)
        {
            arena.close();
        }
        pinned.close();
        try
        {
            PrivateDirectory.deleteTree(folder);
        }
        catch (final IllegalStateException ignore)
        {
            // the sweep of a later process removes it
        }
    }

    private static Path createFolder(final Path directory)
    {
        try
        {
            return PrivateDirectory.createExclusive(directory, FOLDER_PREFIX);
        }
        catch (final IllegalStateException ex)
        {
            throw new DeviceException("cannot create the emulated devices' folder: " + ex.getMessage(), ex);
        }
    }
}
