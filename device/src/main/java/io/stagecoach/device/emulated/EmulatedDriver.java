package io.stagecoach.device.emulated;

import java.io.IOException;
import java.nio.MappedByteBuffer;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;

import io.stagecoach.device.DeviceContext;
import io.stagecoach.device.DeviceException;
import io.stagecoach.device.MemoryRegion;
import io.stagecoach.device.MemoryType;
import org.agrona.BufferUtil;
import org.agrona.IoUtil;

/**
 * The emulated counterpart of the CUDA driver: state shared by every runtime of the process, as libcuda's is. Each
 * device's memory is one shared-memory file, so that another process can map it from an IPC handle; pinned host
 * memory is a second, private arena. Host registrations and imported mappings are tracked for pointer queries.
 */
final class EmulatedDriver
{
    static final String FILE_PREFIX = "stagecoach-emu-";

    private static final Map<String, EmulatedDriver> DRIVERS = new HashMap<>();
    private static final AtomicLong NEXT_ID = new AtomicLong(1);

    private final long id;
    private final long processId = ProcessHandle.current().pid();
    private final Path directory;
    private final ShmArena[] devices;
    private final ShmArena pinned;
    private final TreeMap<Long, Long> registered = new TreeMap<>();
    private final List<Imported> imported = new ArrayList<>();

    private record Imported(MappedByteBuffer mapping, long baseAddress, long lengthBytes, int device, String file)
    {
    }

    private EmulatedDriver(final long id, final DeviceContext context)
    {
        this.id = id;
        this.directory = context.emulatedDirectory();
        sweepStaleFiles(directory);
        devices = new ShmArena[context.emulatedDeviceCount()];
        for (int d = 0; d < devices.length; d++)
        {
            devices[d] = ShmArena.create(deviceFile(directory, processId, id, d), "emulated device " + d,
                context.emulatedMemoryBytes(), true);
        }
        pinned = ShmArena.create(directory.resolve(FILE_PREFIX + processId + "-" + id + "-pinned"),
            "emulated pinned host memory", context.emulatedMemoryBytes(), false);
    }

    static synchronized EmulatedDriver forContext(final DeviceContext context)
    {
        final String key = context.emulatedDirectory() + "|" + context.emulatedDeviceCount() + "|" +
            context.emulatedMemoryBytes();
        EmulatedDriver driver = DRIVERS.get(key);
        if (driver == null)
        {
            driver = new EmulatedDriver(NEXT_ID.getAndIncrement(), context);
            DRIVERS.put(key, driver);
            final EmulatedDriver created = driver;
            Runtime.getRuntime().addShutdownHook(new Thread(created::shutdown, "stagecoach-emulated-shutdown"));
        }
        return driver;
    }

    static Path deviceFile(final Path directory, final long processId, final long driverId, final int device)
    {
        return directory.resolve(FILE_PREFIX + processId + "-" + driverId + "-dev" + device);
    }

    long id()
    {
        return id;
    }

    long processId()
    {
        return processId;
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

    synchronized long openForeign(final long ownerProcessId, final long ownerDriverId, final int device,
        final long offsetBytes)
    {
        final Path file = deviceFile(directory, ownerProcessId, ownerDriverId, device);
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
    }

    private static void sweepStaleFiles(final Path directory)
    {
        try (DirectoryStream<Path> files = Files.newDirectoryStream(directory, FILE_PREFIX + "*"))
        {
            for (final Path file : files)
            {
                final String[] parts = file.getFileName().toString().substring(FILE_PREFIX.length()).split("-");
                try
                {
                    final long owner = Long.parseLong(parts[0]);
                    if (ProcessHandle.of(owner).isEmpty())
                    {
                        Files.deleteIfExists(file);
                    }
                }
                catch (final NumberFormatException | IOException ignore)
                {
                    // not ours or already gone
                }
            }
        }
        catch (final IOException ignore)
        {
            // nothing to sweep
        }
    }
}
