package io.stagecoach.device;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.IdleStrategy;

/**
 * Configuration of a {@link DeviceRuntime}, Aeron style: fluent setters, defaults from system properties or the
 * environment, validated by {@link #conclude()}.
 * <table>
 * <caption>Settings read from the environment</caption>
 * <tr><th>system property</th><th>environment</th><th>meaning</th></tr>
 * <tr><td>stagecoach.device</td><td>STAGECOACH_DEVICE</td><td>cuda or emulated; absent: cuda where a GPU is
 * visible</td></tr>
 * <tr><td>stagecoach.device.ordinal</td><td>STAGECOACH_DEVICE_ORDINAL</td><td>the device a runtime uses where a
 * call names none, from 0 within the devices this process sees; absent: the local rank modulo the device
 * count</td></tr>
 * <tr><td></td><td>STAGECOACH_LOCAL_RANK, OMPI_COMM_WORLD_LOCAL_RANK, MPI_LOCALRANKID, SLURM_LOCALID</td><td>the
 * local rank, read as the rank runtime reads it where the program gives none ({@link #localRank(int)})</td></tr>
 * <tr><td>stagecoach.device.emulated.devices</td><td>STAGECOACH_DEVICE_EMULATED_DEVICES</td><td>emulated device
 * count (2)</td></tr>
 * <tr><td>stagecoach.device.emulated.memoryBytes</td><td>STAGECOACH_DEVICE_EMULATED_MEMORYBYTES</td><td>memory of
 * each emulated device and of the pinned host pool (1 GiB)</td></tr>
 * <tr><td>stagecoach.device.emulated.dir</td><td>STAGECOACH_DEVICE_EMULATED_DIR</td><td>folder in which each
 * process's emulated devices get a private folder (mode 0700) for their shared-memory files (/dev/shm when it has
 * 1 GiB free, else the temporary folder; the launcher names the job's private folder)</td></tr>
 * <tr><td>stagecoach.device.emulated.workers</td><td>STAGECOACH_DEVICE_EMULATED_WORKERS</td><td>threads running
 * emulated streams (2)</td></tr>
 * <tr><td>stagecoach.device.completion.sleepAfterIdleNs</td><td>STAGECOACH_DEVICE_COMPLETION_SLEEPAFTERIDLENS</td>
 * <td>how long the completion thread keeps polling once no completion is awaited, before it sleeps until one is
 * (100000)</td></tr>
 * </table>
 * Under CUDA the devices this process sees are those {@code CUDA_VISIBLE_DEVICES} leaves visible, which the driver
 * numbers from 0 in the order listed: ordinals here are always the driver's, never re-mapped.
 */
public final class DeviceContext
{
    /**
     * Largest emulated memory: one mapping of a file.
     */
    public static final long MAX_EMULATED_MEMORY_BYTES = Integer.MAX_VALUE & ~4095L;

    /**
     * /dev/shm serves the emulated devices only when it has this much room (containers often give it 64 MiB); the
     * temporary folder does otherwise.
     */
    public static final long MIN_SHARED_MEMORY_BYTES = 1L << 30;

    /**
     * The environment variable naming the folder of the emulated devices' private folders.
     */
    public static final String EMULATED_DIRECTORY_VARIABLE = "STAGECOACH_DEVICE_EMULATED_DIR";

    /**
     * {@link #deviceOrdinal()} when no ordinal is set: the local rank chooses the default device.
     */
    public static final int NO_DEVICE_ORDINAL = -1;

    /**
     * {@link #localRank()} when the program gave none: {@link #conclude()} reads the launcher's.
     */
    public static final int NO_LOCAL_RANK = -1;

    private static final String DEVICE_ORDINAL_PROPERTY = "stagecoach.device.ordinal";

    private DeviceKind kind = parseKind(setting("stagecoach.device", null));
    private String deviceOrdinalSource = settingName(DEVICE_ORDINAL_PROPERTY);
    private int deviceOrdinal = parseDeviceOrdinal(deviceOrdinalSource);
    private int localRank = NO_LOCAL_RANK;
    private String localRankSource;
    private int emulatedDeviceCount = Integer.parseInt(setting("stagecoach.device.emulated.devices", "2"));
    private long emulatedMemoryBytes = Long.parseLong(
        setting("stagecoach.device.emulated.memoryBytes", String.valueOf(1L << 30)));
    private Path emulatedDirectory = defaultEmulatedDirectory();
    private int emulatedWorkerThreads = Integer.parseInt(setting("stagecoach.device.emulated.workers", "2"));
    private boolean completionThread = true;
    private IdleStrategy completionIdleStrategy = new BackoffIdleStrategy(64, 16, 1_000, 20_000);
    private int completionQueueCapacity = 64 * 1024;
    private int launchCacheEntries = 256;
    private long completionSleepAfterIdleNs = Long.parseLong(
        setting("stagecoach.device.completion.sleepAfterIdleNs", "100000"));
    private boolean concluded;

    /**
     * Validate and fill in what was left to defaults.
     *
     * @return this.
     */
    public DeviceContext conclude()
    {
        concludeDeviceChoice();
        if (emulatedDeviceCount < 1 || emulatedDeviceCount > 64)
        {
            throw new IllegalArgumentException("emulated device count " + emulatedDeviceCount + " outside [1, 64]");
        }
        if (emulatedMemoryBytes < 4096 || emulatedMemoryBytes > MAX_EMULATED_MEMORY_BYTES)
        {
            throw new IllegalArgumentException("emulated memory " + emulatedMemoryBytes + " bytes outside [4096, " +
                MAX_EMULATED_MEMORY_BYTES + "]");
        }
        if (emulatedWorkerThreads < 1)
        {
            throw new IllegalArgumentException("emulated worker threads " + emulatedWorkerThreads + " below 1");
        }
        if (completionQueueCapacity < 16)
        {
            throw new IllegalArgumentException("completion queue capacity " + completionQueueCapacity + " below 16");
        }
        if (launchCacheEntries < 4)
        {
            throw new IllegalArgumentException("launch cache entries " + launchCacheEntries + " below 4");
        }
        if (completionSleepAfterIdleNs < 0)
        {
            throw new IllegalArgumentException("completion sleep after idle " + completionSleepAfterIdleNs +
                " ns is negative");
        }
        concluded = true;
        return this;
    }

    /**
     * @return true once {@link #conclude()} ran.
     */
    public boolean isConcluded()
    {
        return concluded;
    }

    /**
     * @return the back end asked for, or null to choose automatically.
     */
    public DeviceKind kind()
    {
        return kind;
    }

    /**
     * @param kind the back end to use, or null to choose automatically (cuda where a GPU is visible).
     * @return this.
     */
    public DeviceContext kind(final DeviceKind kind)
    {
        this.kind = kind;
        return this;
    }

    /**
     * @return the device ordinal set, or {@link #NO_DEVICE_ORDINAL} when the local rank chooses.
     */
    public int deviceOrdinal()
    {
        return deviceOrdinal;
    }

    /**
     * @param ordinal the device a runtime uses where a call names none, from 0 within the devices this process sees;
     *                checked against them when the runtime opens. {@link #NO_DEVICE_ORDINAL}: the local rank chooses.
     * @return this.
     */
    public DeviceContext deviceOrdinal(final int ordinal)
    {
        this.deviceOrdinal = ordinal;
        this.deviceOrdinalSource = "DeviceContext.deviceOrdinal";
        return this;
    }

    /**
     * @return the local rank given, the launcher's once concluded, or {@link #NO_LOCAL_RANK} before.
     */
    public int localRank()
    {
        return localRank;
    }

    /**
     * @param localRank of this process among the job's processes on its node, as the rank runtime knows it; the
     *                  default device is this modulo the device count unless an ordinal is set.
     *                  {@link #NO_LOCAL_RANK}: read the launcher's environment as the rank runtime does.
     * @return this.
     */
    public DeviceContext localRank(final int localRank)
    {
        this.localRank = localRank;
        this.localRankSource = "DeviceContext.localRank";
        return this;
    }

    /**
     * The device a runtime uses where a call names none: the ordinal set, which must be one of the devices, else the
     * local rank modulo the device count, so that the ranks of a node spread over its devices one by one.
     *
     * @param deviceCount devices this process sees, at least one.
     * @return the default device's ordinal.
     * @throws IllegalArgumentException when the ordinal set is not below the device count, naming both.
     * @throws IllegalStateException    before {@link #conclude()}.
     */
    public int defaultDevice(final int deviceCount)
    {
        return defaultDevice(deviceCount, deviceCount + " device(s)");
    }

    /**
     * @return number of emulated devices.
     */
    public int emulatedDeviceCount()
    {
        return emulatedDeviceCount;
    }

    /**
     * @param count of emulated devices.
     * @return this.
     */
    public DeviceContext emulatedDeviceCount(final int count)
    {
        this.emulatedDeviceCount = count;
        return this;
    }

    /**
     * @return memory of each emulated device, and of the emulated pinned host pool.
     */
    public long emulatedMemoryBytes()
    {
        return emulatedMemoryBytes;
    }

    /**
     * @param lengthBytes memory of each emulated device (a sparse shared-memory file: untouched pages cost nothing).
     * @return this.
     */
    public DeviceContext emulatedMemoryBytes(final long lengthBytes)
    {
        this.emulatedMemoryBytes = lengthBytes;
        return this;
    }

    /**
     * @return folder in which the emulated devices of a process get a private folder for their shared-memory files.
     */
    public Path emulatedDirectory()
    {
        return emulatedDirectory;
    }

    /**
     * @param directory in which the emulated devices of a process get a private folder for their shared-memory
     *                  files; processes that exchange IPC handles share it.
     * @return this.
     */
    public DeviceContext emulatedDirectory(final Path directory)
    {
        this.emulatedDirectory = directory;
        return this;
    }

    /**
     * @return threads that run emulated streams.
     */
    public int emulatedWorkerThreads()
    {
        return emulatedWorkerThreads;
    }

    /**
     * @param threads that run emulated streams.
     * @return this.
     */
    public DeviceContext emulatedWorkerThreads(final int threads)
    {
        this.emulatedWorkerThreads = threads;
        return this;
    }

    /**
     * @return true when the runtime runs its completion agent on a thread of its own.
     */
    public boolean completionThread()
    {
        return completionThread;
    }

    /**
     * @param completionThread false to drive completions from the owner's duty cycle with
     *                         {@link DeviceRuntime#pollCompletions()}.
     * @return this.
     */
    public DeviceContext completionThread(final boolean completionThread)
    {
        this.completionThread = completionThread;
        return this;
    }

    /**
     * @return idle strategy of the completion thread.
     */
    public IdleStrategy completionIdleStrategy()
    {
        return completionIdleStrategy;
    }

    /**
     * @param idleStrategy of the completion thread; busy spinning gives the lowest latency on a machine with spare
     *                     cores.
     * @return this.
     */
    public DeviceContext completionIdleStrategy(final IdleStrategy idleStrategy)
    {
        this.completionIdleStrategy = idleStrategy;
        return this;
    }

    /**
     * @return events that may await completion at once.
     */
    public int completionQueueCapacity()
    {
        return completionQueueCapacity;
    }

    /**
     * @param capacity of the queue of events handed to the completion agent.
     * @return this.
     */
    public DeviceContext completionQueueCapacity(final int capacity)
    {
        this.completionQueueCapacity = capacity;
        return this;
    }

    /**
     * @return launches (instantiated graphs) cached per packer.
     */
    public int launchCacheEntries()
    {
        return launchCacheEntries;
    }

    /**
     * @param entries launches cached per packer, keyed by buffers and byte range.
     * @return this.
     */
    public DeviceContext launchCacheEntries(final int entries)
    {
        this.launchCacheEntries = entries;
        return this;
    }

    /**
     * @return nanoseconds the completion thread keeps polling after the last awaited completion before it sleeps.
     */
    public long completionSleepAfterIdleNs()
    {
        return completionSleepAfterIdleNs;
    }

    /**
     * @param nanos the completion thread keeps running its idle strategy this long once no completion is awaited, so
     *              that bursts of work see no wake-up; then it sleeps until an event is handed to it (0: at once).
     *              While completions are awaited it never sleeps longer than its idle strategy says.
     * @return this.
     */
    public DeviceContext completionSleepAfterIdleNs(final long nanos)
    {
        this.completionSleepAfterIdleNs = nanos;
        return this;
    }

    int defaultDevice(final int deviceCount, final String devicesSeen)
    {
        if (!concluded)
        {
            throw new IllegalStateException("the default device is chosen from a concluded context");
        }
        if (deviceOrdinal == NO_DEVICE_ORDINAL)
        {
            return localRank % deviceCount;
        }
        if (deviceOrdinal >= deviceCount)
        {
            throw new IllegalArgumentException("device ordinal " + deviceOrdinal + " (" + deviceOrdinalSource +
                ") outside [0, " + deviceCount + "): this process sees " + devicesSeen + ", numbered from 0");
        }
        return deviceOrdinal;
    }

    String defaultDeviceReason(final int deviceCount)
    {
        return deviceOrdinal == NO_DEVICE_ORDINAL ?
            "local rank " + localRank + " (" + localRankSource + ") modulo " + deviceCount + " device(s)" :
            "ordinal from " + deviceOrdinalSource;
    }

    private void concludeDeviceChoice()
    {
        if (deviceOrdinal < NO_DEVICE_ORDINAL)
        {
            throw new IllegalArgumentException("device ordinal " + deviceOrdinal + " (" + deviceOrdinalSource +
                ") is negative");
        }
        if (localRank == NO_LOCAL_RANK)
        {
            final LocalRank launcher = LocalRank.fromEnvironment(System.getenv());
            localRank = launcher.value();
            localRankSource = launcher.source();
        }
        if (localRank < 0)
        {
            throw new IllegalArgumentException("local rank " + localRank + " (" + localRankSource + ") is negative");
        }
    }

    static String setting(final String property, final String fallback)
    {
        final String fromProperty = System.getProperty(property);
        if (fromProperty != null && !fromProperty.isBlank())
        {
            return fromProperty;
        }
        final String variable = property.toUpperCase().replace('.', '_');
        final Map<String, String> environment = System.getenv();
        final String fromEnvironment = environment.get(variable);
        return fromEnvironment != null && !fromEnvironment.isBlank() ? fromEnvironment : fallback;
    }

    private static String settingName(final String property)
    {
        final String fromProperty = System.getProperty(property);
        if (fromProperty != null && !fromProperty.isBlank())
        {
            return property;
        }
        final String variable = property.toUpperCase().replace('.', '_');
        final String fromEnvironment = System.getenv(variable);
        return fromEnvironment != null && !fromEnvironment.isBlank() ? variable : null;
    }

    private static int parseDeviceOrdinal(final String source)
    {
        if (source == null)
        {
            return NO_DEVICE_ORDINAL;
        }
        final String value = setting(DEVICE_ORDINAL_PROPERTY, null);
        try
        {
            final int ordinal = Integer.parseInt(value.trim());
            if (ordinal >= 0)
            {
                return ordinal;
            }
        }
        catch (final NumberFormatException ignore)
        {
            // named below
        }
        throw new IllegalArgumentException(source + "=" + value + " is not a device ordinal (an integer from 0)");
    }

    private static DeviceKind parseKind(final String value)
    {
        return value == null || value.equalsIgnoreCase("auto") ? null : DeviceKind.parse(value);
    }

    private static Path defaultEmulatedDirectory()
    {
        final String configured = setting("stagecoach.device.emulated.dir", null);
        if (configured != null)
        {
            return Path.of(configured);
        }
        final Path shm = Path.of("/dev/shm");
        try
        {
            if (Files.isDirectory(shm) && Files.isWritable(shm) &&
                Files.getFileStore(shm).getUsableSpace() >= MIN_SHARED_MEMORY_BYTES)
            {
                return shm;
            }
        }
        catch (final java.io.IOException ignore)
        {
            // fall back to the temporary folder
        }
        return new File(System.getProperty("java.io.tmpdir")).toPath();
    }
}
