package io.stagecoach.device;

import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

import io.stagecoach.protocol.datatype.CompiledType;
import org.agrona.collections.Long2ObjectHashMap;
import org.agrona.concurrent.AgentRunner;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The device layer used by the pipeline and the rank runtime: memory, memory-type detection, streams, events and
 * their non-blocking completion, pack and unpack kernels for derived datatypes, IPC of device memory between
 * processes of one node, and an application's own kernels ({@link #loadModule(int, KernelSource)}: PTX on a GPU, Java
 * twins on the emulated device). One back end serves it (CUDA or emulated), chosen automatically or by configuration.
 * <p>
 * Every call that takes a device has an overload without one, which uses the runtime's {@link #defaultDevice()}: the
 * ordinal configured, else the local rank modulo the device count, so that one rank per device on a node needs no
 * code to choose its device.
 * <p>
 * Every request is validated here, in one place, whatever the back end: a double free, a use of freed memory, an
 * address that belongs to no allocation where one is needed, or a range that overruns its allocation is a
 * {@link DeviceException} naming the value and the limit.
 */
public final class DeviceRuntime implements AutoCloseable
{
    private static final Logger LOG = LoggerFactory.getLogger(DeviceRuntime.class);

    private final DeviceContext context;
    private final DeviceBackend backend;
    private final int defaultDevice;
    private final MemoryMap memoryMap = new MemoryMap();
    private final Long2ObjectHashMap<Allocation> live = new Long2ObjectHashMap<>();
    private final Long2ObjectHashMap<Export> exported = new Long2ObjectHashMap<>();
    private final AtomicLong exportNumbers = new AtomicLong();
    private final List<IpcExportListener> exportListeners = new CopyOnWriteArrayList<>();
    private final ConcurrentHashMap<CompiledType, DevicePacker[]> packers = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<TypePair, DeviceTranscoder[]> transcoders = new ConcurrentHashMap<>();
    private final Set<DeviceStream> streams = ConcurrentHashMap.newKeySet();
    private final Set<DeviceEvent> events = ConcurrentHashMap.newKeySet();
    private final Set<PackBatch> batches = ConcurrentHashMap.newKeySet();
    private final Set<KernelModule> modules = ConcurrentHashMap.newKeySet();
    private final IpcCache ipcCache;
    private final CompletionAgent completionAgent;
    private final AgentRunner completionRunner;
    private final AtomicLong driverQueries = new AtomicLong();
    private volatile boolean closed;

    private DeviceRuntime(final DeviceContext context, final DeviceBackend backend, final int defaultDevice)
    {
        this.context = context;
        this.backend = backend;
        this.defaultDevice = defaultDevice;
        this.ipcCache = new IpcCache(this, backend, memoryMap);
        this.completionAgent = new CompletionAgent(context.completionQueueCapacity());
        if (context.completionThread())
        {
            completionRunner = new AgentRunner(
                completionAgent.idleStrategy(context.completionIdleStrategy(), context.completionSleepAfterIdleNs()),
                ex -> LOG.error("completion agent failed", ex), null, completionAgent);
            AgentRunner.startOnThread(completionRunner, runnable ->
            {
                final Thread thread = new Thread(runnable);
                thread.setDaemon(true);
                return thread;
            });
        }
        else
        {
            completionRunner = null;
        }
    }

    /**
     * Open a runtime with the configuration found in system properties and the environment.
     *
     * @return the runtime.
     */
    public static DeviceRuntime open()
    {
        return open(new DeviceContext());
    }

    /**
     * Open a runtime. The back end is the one the context names; when it names none, CUDA where JCuda loads and a GPU
     * is visible, the emulated device otherwise. The default device is {@link DeviceContext#defaultDevice(int)} of
     * the devices the back end sees; which one, and why, is logged.
     *
     * @param context configuration; concluded here if it was not.
     * @return the runtime.
     * @throws IllegalArgumentException when the configured device ordinal is not one of the devices, naming both.
     */
    public static DeviceRuntime open(final DeviceContext context)
    {
        if (!context.isConcluded())
        {
            context.conclude();
        }
        final DeviceBackendProvider provider = provider(context.kind());
        final DeviceBackend backend = provider.open(context);
        final int defaultDevice = chooseDefaultDevice(context, backend);
        LOG.info("device runtime open: {}; default device {} ({}): {}", devicesSeen(backend), defaultDevice,
            backend.deviceName(defaultDevice), context.defaultDeviceReason(backend.deviceCount()));
        return new DeviceRuntime(context, backend, defaultDevice);
    }

    /**
     * @return the back ends that can run here, in order of preference.
     */
    public static List<DeviceKind> availableKinds()
    {
        final List<DeviceKind> kinds = new ArrayList<>();
        for (final DeviceBackendProvider provider : providers())
        {
            if (provider.isAvailable())
            {
                kinds.add(provider.kind());
            }
        }
        return kinds;
    }

    /**
     * @return the back end in use.
     */
    public DeviceKind kind()
    {
        return backend.kind();
    }

    /**
     * @return the configuration the runtime was opened with.
     */
    public DeviceContext context()
    {
        return context;
    }

    /**
     * @return number of devices.
     */
    public int deviceCount()
    {
        return backend.deviceCount();
    }

    /**
     * The device that calls naming none use: the ordinal configured ({@code stagecoach.device.ordinal}), else the local
     * rank modulo {@link #deviceCount()}. Under CUDA ordinals count the devices {@code CUDA_VISIBLE_DEVICES} leaves
     * visible, as the driver numbers them.
     *
     * @return its ordinal.
     */
    public int defaultDevice()
    {
        return defaultDevice;
    }

    /**
     * @return the name of the {@link #defaultDevice()}.
     */
    public String deviceName()
    {
        return deviceName(defaultDevice);
    }

    /**
     * @param device ordinal.
     * @return its name.
     */
    public String deviceName(final int device)
    {
        checkDevice(device);
        return backend.deviceName(device);
    }

    /**
     * @param lengthBytes to allocate.
     * @return memory of the {@link #defaultDevice()}.
     */
    public Allocation allocate(final long lengthBytes)
    {
        return allocate(defaultDevice, lengthBytes);
    }

    /**
     * @param device      ordinal.
     * @param lengthBytes to allocate.
     * @return device memory.
     */
    public Allocation allocate(final int device, final long lengthBytes)
    {
        ensureOpen();
        checkDevice(device);
        checkLength(lengthBytes);
        final long address = backend.allocateDevice(device, lengthBytes);
        return track(new MemoryRegion(MemoryType.DEVICE, device, address, lengthBytes, address, true));
    }

    /**
     * @param lengthBytes to allocate.
     * @return page-locked host memory, mapped so that kernels of every device can read and write it.
     */
    public Allocation allocatePinned(final long lengthBytes)
    {
        ensureOpen();
        checkLength(lengthBytes);
        final long address = backend.allocatePinned(lengthBytes);
        final long deviceAddress = backend.mappedDeviceAddress(address);
        return track(new MemoryRegion(MemoryType.PINNED_HOST, -1, address, lengthBytes, deviceAddress, true));
    }

    /**
     * Page-lock and map existing host memory (a shared-memory segment, a direct buffer) for fast copies and direct
     * kernel access. Free the returned allocation to unregister; the memory itself stays the caller's.
     *
     * @param address     start of the host range.
     * @param lengthBytes of the range.
     * @return the registration.
     */
    public Allocation register(final long address, final long lengthBytes)
    {
        ensureOpen();
        checkLength(lengthBytes);
        final MemoryRegion known = memoryMap.find(address);
        if (known != null && known.owned())
        {
            throw new DeviceException("cannot register 0x" + Long.toHexString(address) + ": it lies in " + known);
        }
        backend.registerHost(address, lengthBytes);
        final long deviceAddress = backend.mappedDeviceAddress(address);
        return track(new MemoryRegion(MemoryType.REGISTERED_HOST, -1, address, lengthBytes, deviceAddress, true));
    }

    /**
     * Free the allocation that starts at an address.
     *
     * @param address start of an allocation of this runtime.
     */
    public void free(final long address)
    {
        final Allocation allocation;
        synchronized (live)
        {
            allocation = live.get(address);
        }
        if (allocation == null)
        {
            final MemoryRegion freed = memoryMap.findFreed(address);
            if (freed != null && freed.startAddress() == address)
            {
                throw new DeviceException("double free of " + freed);
            }
            throw new DeviceException("free of 0x" + Long.toHexString(address) +
                ", which is not the start of an allocation of this runtime");
        }
        allocation.free();
    }

    /**
     * Memory-type detection: what an address is, asked of the driver once per allocation range and cached; the cache
     * forgets a range when this runtime frees it.
     *
     * @param address any address.
     * @return its allocation range, or {@link MemoryRegion#PAGEABLE_HOST}.
     * @throws DeviceException when the address lies in memory this runtime freed.
     */
    public MemoryRegion lookup(final long address)
    {
        final MemoryRegion cached = memoryMap.find(address);
        if (cached != null)
        {
            return cached;
        }
        final MemoryRegion freed = memoryMap.findFreed(address);
        if (freed != null)
        {
            return reallocatedElsewhere(address, freed);
        }
        driverQueries.incrementAndGet();
        final MemoryRegion found = backend.query(address);
        if (found == null)
        {
            return MemoryRegion.PAGEABLE_HOST;
        }
        if (found.lengthBytes() > 0)
        {
            memoryMap.add(found);
        }
        return found;
    }

    /**
     * Drop the cached answer for memory this runtime did not allocate, after its owner freed it.
     *
     * @param address inside the range to forget.
     */
    public void forget(final long address)
    {
        memoryMap.forget(address);
    }

    /**
     * @return how many times the driver was asked about an address (cache misses), for tests and diagnostics.
     */
    public long driverQueryCount()
    {
        return driverQueries.get();
    }

    /**
     * @return a new stream on the {@link #defaultDevice()}.
     */
    public DeviceStream createStream()
    {
        return createStream(defaultDevice);
    }

    /**
     * @param device the stream runs on.
     * @return a new stream.
     */
    public DeviceStream createStream(final int device)
    {
        ensureOpen();
        checkDevice(device);
        final DeviceStream stream = new DeviceStream(this, device, backend.createStream(device));
        streams.add(stream);
        return stream;
    }

    /**
     * @return a new event of the {@link #defaultDevice()}.
     */
    public DeviceEvent createEvent()
    {
        return createEvent(defaultDevice);
    }

    /**
     * @param device the event belongs to.
     * @return a new event.
     */
    public DeviceEvent createEvent(final int device)
    {
        ensureOpen();
        checkDevice(device);
        final DeviceEvent event = new DeviceEvent(this, device, backend.createEvent(device));
        events.add(event);
        return event;
    }

    /**
     * The pack and unpack kernels of a datatype on the {@link #defaultDevice()}, as {@link #packer(CompiledType, int)}.
     *
     * @param type compiled form of a committed datatype.
     * @return the packer.
     */
    public DevicePacker packer(final CompiledType type)
    {
        return packer(type, defaultDevice);
    }

    /**
     * The pack and unpack kernels of a datatype on a device, built once (node code uploaded, arguments prepared) and
     * cached for the life of the runtime.
     *
     * @param type   compiled form of a committed datatype.
     * @param device the kernels run on.
     * @return the packer.
     */
    public DevicePacker packer(final CompiledType type, final int device)
    {
        ensureOpen();
        checkDevice(device);
        final DevicePacker[] perDevice = packers.computeIfAbsent(type, t -> new DevicePacker[deviceCount()]);
        DevicePacker packer = perDevice[device];
        if (packer == null)
        {
            synchronized (perDevice)
            {
                packer = perDevice[device];
                if (packer == null)
                {
                    packer = new DevicePacker(this, device, type, backend.createPacker(device, type));
                    perDevice[device] = packer;
                }
            }
        }
        return packer;
    }

    /**
     * The copy between two datatypes' layouts on the {@link #defaultDevice()}, as
     * {@link #transcoder(CompiledType, CompiledType, int)}.
     *
     * @param source      compiled form of the source's committed datatype.
     * @param destination compiled form of the destination's.
     * @return the transcoder.
     */
    public DeviceTranscoder transcoder(final CompiledType source, final CompiledType destination)
    {
        return transcoder(source, destination, defaultDevice);
    }

    /**
     * The copy between two datatypes' layouts on a device, one kernel per call with pack and unpack fused, built once
     * per pair (on the two datatypes' packers) and cached for the life of the runtime.
     *
     * @param source      compiled form of the source's committed datatype.
     * @param destination compiled form of the destination's.
     * @param device      the copies run on.
     * @return the transcoder.
     */
    public DeviceTranscoder transcoder(final CompiledType source, final CompiledType destination, final int device)
    {
        ensureOpen();
        checkDevice(device);
        final DeviceTranscoder[] perDevice = transcoders.computeIfAbsent(new TypePair(source, destination),
            pair -> new DeviceTranscoder[deviceCount()]);
        DeviceTranscoder transcoder = perDevice[device];
        if (transcoder == null)
        {
            final DevicePacker from = packer(source, device);
            final DevicePacker to = packer(destination, device);
            synchronized (perDevice)
            {
                transcoder = perDevice[device];
                if (transcoder == null)
                {
                    transcoder = new DeviceTranscoder(this, from, to,
                        backend.createTranscoder(device, from.backend(), to.backend()));
                    perDevice[device] = transcoder;
                }
            }
        }
        return transcoder;
    }

    /**
     * Packs and unpacks on the {@link #defaultDevice()}, as {@link #packBatch(int, PackJob...)}.
     *
     * @param jobs at least one, each with a packer of the default device and buffers it can reach.
     * @return the batch; closed with this runtime at the latest.
     */
    public PackBatch packBatch(final PackJob... jobs)
    {
        return packBatch(defaultDevice, jobs);
    }

    /**
     * Packs and unpacks fixed once and launched together, as often as needed, with one launch and one completion.
     *
     * @param device the jobs run on.
     * @param jobs   at least one, each with a packer of that device and buffers it can reach.
     * @return the batch; closed with this runtime at the latest.
     * @throws IllegalArgumentException naming the job and the problem: no jobs, a packer of another device, a
     *                                  negative or empty range, a buffer outside every allocation.
     */
    public PackBatch packBatch(final int device, final PackJob... jobs)
    {
        ensureOpen();
        checkDevice(device);
        final BackendBatch.Move[] moves = PackBatch.moves(device, List.of(jobs));
        final PackBatch batch =
            new PackBatch(device, moves.length, backend.createBatch(device, moves), batches::remove);
        batches.add(batch);
        return batch;
    }

    /**
     * An application's kernels on the {@link #defaultDevice()}, as {@link #loadModule(int, KernelSource)}.
     *
     * @param source the module's PTX and Java bodies.
     * @return the module; closed with this runtime at the latest.
     */
    public KernelModule loadModule(final KernelSource source)
    {
        return loadModule(defaultDevice, source);
    }

    /**
     * Load an application's kernels on a device: a CUDA device loads the source's PTX, the emulated device takes its
     * Java bodies. Kernels are launched with {@link Kernel#launch(DeviceStream, LaunchShape, KernelArguments)} in any
     * stream of that device, ordered with copies, packs and events like the rest of the stream's work.
     *
     * @param device the kernels run on.
     * @param source the module's PTX and Java bodies.
     * @return the module; closed with this runtime at the latest.
     * @throws DeviceException when the source has nothing this back end can run (no PTX for a GPU), naming the module.
     */
    public KernelModule loadModule(final int device, final KernelSource source)
    {
        ensureOpen();
        checkDevice(device);
        final KernelModule module = new KernelModule(source.name(), device, backend.loadModule(device, source),
            modules::remove);
        modules.add(module);
        return module;
    }

    /**
     * Export a range of device memory allocated by this runtime for another process on this node. The allocation is
     * exported once, under a number of this runtime that its handles carry; {@link IpcExportListener}s are told when
     * it is freed.
     *
     * @param address     start of the range.
     * @param lengthBytes of the range.
     * @return the handle to send.
     */
    public IpcHandle exportIpc(final long address, final long lengthBytes)
    {
        ensureOpen();
        final MemoryRegion region = lookup(address);
        if (region.type() != MemoryType.DEVICE || !region.owned())
        {
            throw new DeviceException("IPC export needs device memory allocated by this runtime; 0x" +
                Long.toHexString(address) + " is " + region);
        }
        checkRange(address, lengthBytes, "IPC export");
        final Export export;
        synchronized (exported)
        {
            Export known = exported.get(region.startAddress());
            if (known == null)
            {
                known = new Export(backend.exportIpc(region.device(), region.startAddress()),
                    exportNumbers.incrementAndGet());
                exported.put(region.startAddress(), known);
            }
            export = known;
        }
        return new IpcHandle(backend.kind(), region.device(), ProcessHandle.current().pid(), region.startAddress(),
            region.lengthBytes(), address - region.startAddress(), lengthBytes, export.number(), export.opaque());
    }

    /**
     * @param listener told of each allocation this runtime exported that is freed from now on.
     */
    public void addExportListener(final IpcExportListener listener)
    {
        exportListeners.add(listener);
    }

    /**
     * @param listener no longer to be told.
     */
    public void removeExportListener(final IpcExportListener listener)
    {
        exportListeners.remove(listener);
    }

    /**
     * Open another process' exported device memory; the driver mapping is cached per allocation.
     *
     * @param handle received from the exporter.
     * @return the mapping; close it when done.
     */
    public IpcMapping openIpc(final IpcHandle handle)
    {
        ensureOpen();
        return ipcCache.open(handle);
    }

    /**
     * Tell the cache that the exporter freed the allocation behind a handle: its mapping closes once unused.
     *
     * @param handle of the freed allocation.
     */
    public void invalidateIpc(final IpcHandle handle)
    {
        ipcCache.invalidate(handle);
    }

    /**
     * Tell the cache that the exporter freed an allocation, as its {@link IpcExportListener} heard: the mapping of that
     * export closes, at once where unused, otherwise once its last {@link IpcMapping} is closed. A mapping of a later
     * export at the same address stays.
     *
     * @param processId         of the exporter, as its handles name it.
     * @param allocationAddress of the freed allocation in the exporter.
     * @param exportNumber      of its export.
     * @return true when a mapping of that export was open.
     */
    public boolean invalidateIpc(final long processId, final long allocationAddress, final long exportNumber)
    {
        return ipcCache.invalidate(processId, allocationAddress, exportNumber);
    }

    /**
     * Tell the cache that a process exports nothing more to this one (it is gone, or left): every mapping of its
     * memory closes, at once where unused, otherwise once its last {@link IpcMapping} is closed.
     *
     * @param processId of the exporter, as its handles name it.
     * @return mappings of its memory that were open.
     */
    public int invalidateIpcOf(final long processId)
    {
        return ipcCache.invalidateProcess(processId);
    }

    /**
     * @return allocations of other processes currently mapped.
     */
    public int openIpcCount()
    {
        return ipcCache.openCount();
    }

    /**
     * Ask to be told, on the completion agent's thread, once the event's latest recording completed.
     *
     * @param event   recorded in a stream.
     * @param handler to call.
     * @param token   passed back to the handler.
     */
    public void onComplete(final DeviceEvent event, final CompletionHandler handler, final long token)
    {
        submit(event, handler, token, null);
    }

    /**
     * @param event recorded in a stream.
     * @return a future completed (on the completion agent's thread) once the event's latest recording completed.
     */
    public CompletableFuture<DeviceEvent> whenComplete(final DeviceEvent event)
    {
        final CompletableFuture<DeviceEvent> future = new CompletableFuture<>();
        submit(event, null, 0, future);
        return future;
    }

    /**
     * Run one duty cycle of the completion agent; only when the context has no completion thread, and from one thread.
     *
     * @return completions delivered.
     */
    public int pollCompletions()
    {
        if (completionRunner != null)
        {
            throw new IllegalStateException("completions are polled by the runtime's own thread");
        }
        return completionAgent.doWork();
    }

    /**
     * @return duty cycles the completion agent ran so far (its wake-ups), for tests and diagnostics.
     */
    long completionDutyCycles()
    {
        return completionAgent.dutyCycles();
    }

    /**
     * @return times the completion agent went to sleep until the next submission, for tests and diagnostics.
     */
    long completionSleeps()
    {
        return completionAgent.sleeps();
    }

    /**
     * Free everything still allocated, stop the completion agent and close the back end.
     */
    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        if (completionRunner != null)
        {
            completionAgent.wakeForClose();
            completionRunner.close();
        }
        else
        {
            completionAgent.onClose();
        }
        new ArrayList<>(batches).forEach(PackBatch::close);
        batches.clear();
        transcoders.values().forEach(perDevice ->
        {
            for (final DeviceTranscoder transcoder : perDevice)
            {
                if (transcoder != null)
                {
                    transcoder.close();
                }
            }
        });
        transcoders.clear();
        new ArrayList<>(modules).forEach(KernelModule::close);
        packers.values().forEach(perDevice ->
        {
            for (final DevicePacker packer : perDevice)
            {
                if (packer != null)
                {
                    packer.close();
                }
            }
        });
        packers.clear();
        new ArrayList<>(streams).forEach(DeviceStream::close);
        new ArrayList<>(events).forEach(DeviceEvent::close);
        ipcCache.closeAll();
        final List<Allocation> leftovers;
        synchronized (live)
        {
            leftovers = new ArrayList<>(live.values());
        }
        if (!leftovers.isEmpty())
        {
            LOG.info("freeing {} allocation(s) left at close", leftovers.size());
        }
        leftovers.forEach(allocation ->
        {
            if (!allocation.isFreed())
            {
                allocation.free();
            }
        });
        backend.close();
    }

    void release(final Allocation allocation)
    {
        final MemoryRegion region = allocation.region();
        synchronized (live)
        {
            live.remove(region.startAddress());
        }
        final Export export;
        synchronized (exported)
        {
            export = exported.remove(region.startAddress());
        }
        memoryMap.remove(region, region.type() != MemoryType.REGISTERED_HOST);
        switch (region.type())
        {
            case DEVICE -> backend.freeDevice(region.device(), region.startAddress());
            case PINNED_HOST -> backend.freePinned(region.startAddress());
            case REGISTERED_HOST -> backend.unregisterHost(region.startAddress());
            default -> throw new IllegalStateException("cannot free " + region);
        }
        if (export != null)
        {
            exportFreed(region.startAddress(), export.number());
        }
    }

    void forget(final DeviceStream stream)
    {
        streams.remove(stream);
    }

    void forget(final DeviceEvent event)
    {
        events.remove(event);
    }

    void checkRange(final long address, final long lengthBytes, final String role)
    {
        final MemoryRegion region = lookup(address);
        if (region.lengthBytes() > 0 && address + lengthBytes - region.endAddress() > 0)
        {
            throw new DeviceException(role + " of " + lengthBytes + " bytes at 0x" + Long.toHexString(address) +
                " (offset " + (address - region.startAddress()) + ") overruns " + region + " by " +
                (address + lengthBytes - region.endAddress()) + " bytes");
        }
    }

    MemoryRegion accessibleRegion(final long address, final long lengthBytes, final int device, final String role)
    {
        final MemoryRegion region = lookup(address);
        if (!region.type().isDeviceAccessible())
        {
            throw new DeviceException(role + " 0x" + Long.toHexString(address) + " belongs to no device-accessible " +
                "allocation (pageable host memory): use device, pinned or registered memory");
        }
        if (region.type() == MemoryType.DEVICE && region.device() != device)
        {
            throw new DeviceException(role + " 0x" + Long.toHexString(address) + " is memory of device " +
                region.device() + ", the kernel runs on device " + device);
        }
        checkRange(address, lengthBytes, role);
        return region;
    }

    private void exportFreed(final long allocationAddress, final long exportNumber)
    {
        for (final IpcExportListener listener : exportListeners)
        {
            try
            {
                listener.exportFreed(allocationAddress, exportNumber);
            }
            catch (final RuntimeException ex)
            {
                LOG.warn("export listener failed on the free of 0x{} (export {})", Long.toHexString(allocationAddress),
                    exportNumber, ex);
            }
        }
    }

    private MemoryRegion reallocatedElsewhere(final long address, final MemoryRegion freed)
    {
        final MemoryRegion found;
        try
        {
            driverQueries.incrementAndGet();
            found = backend.query(address);
        }
        catch (final DeviceException ex)
        {
            throw new DeviceException("address 0x" + Long.toHexString(address) + " lies in " + freed +
                ", which was freed", ex);
        }
        if (found != null && found.lengthBytes() > 0)
        {
            memoryMap.add(found);
            return found;
        }
        if (found == null && HostMappings.isMapped(address))
        {
            memoryMap.clearFreed(address);
            return MemoryRegion.PAGEABLE_HOST;
        }
        throw new DeviceException("address 0x" + Long.toHexString(address) + " lies in " + freed +
            ", which was freed");
    }

    private void submit(
        final DeviceEvent event,
        final CompletionHandler handler,
        final long token,
        final CompletableFuture<DeviceEvent> future)
    {
        ensureOpen();
        if (event.runtime() != this)
        {
            throw new IllegalArgumentException("event belongs to another device runtime");
        }
        event.arm(handler, token, future);
        if (!completionAgent.submit(event))
        {
            event.deliver(new DeviceException("completion queue full: " + completionAgent.awaiting() +
                " events await completion, capacity " + context.completionQueueCapacity()));
        }
    }

    private Allocation track(final MemoryRegion region)
    {
        final Allocation allocation = new Allocation(this, region);
        memoryMap.add(region);
        synchronized (live)
        {
            live.put(region.startAddress(), allocation);
        }
        return allocation;
    }

    private void checkDevice(final int device)
    {
        if (device < 0 || device >= backend.deviceCount())
        {
            throw new IllegalArgumentException("device " + device + " outside [0, " + backend.deviceCount() + ")");
        }
    }

    /** An allocation's export: the driver's opaque handle and this runtime's number of it. */
    private record Export(byte[] opaque, long number)
    {
    }

    /** The datatypes of a copy between two layouts, by identity, as packers are cached. */
    private record TypePair(CompiledType source, CompiledType destination)
    {
    }

    private static void checkLength(final long lengthBytes)
    {
        if (lengthBytes <= 0)
        {
            throw new IllegalArgumentException("allocation length " + lengthBytes + " must be positive");
        }
    }

    private void ensureOpen()
    {
        if (closed)
        {
            throw new DeviceException("device runtime used after close");
        }
    }

    private static int chooseDefaultDevice(final DeviceContext context, final DeviceBackend backend)
    {
        try
        {
            return context.defaultDevice(backend.deviceCount(), devicesSeen(backend));
        }
        catch (final RuntimeException ex)
        {
            backend.close();
            throw ex;
        }
    }

    private static String devicesSeen(final DeviceBackend backend)
    {
        final String visible = System.getenv("CUDA_VISIBLE_DEVICES");
        return backend.deviceCount() + " " + backend.kind() + " device(s)" +
            (backend.kind() == DeviceKind.CUDA && visible != null ? " (CUDA_VISIBLE_DEVICES=" + visible + ")" : "");
    }

    private static List<DeviceBackendProvider> providers()
    {
        final List<DeviceBackendProvider> providers = new ArrayList<>();
        ServiceLoader.load(DeviceBackendProvider.class, DeviceRuntime.class.getClassLoader()).forEach(providers::add);
        providers.sort((a, b) -> a.kind().compareTo(b.kind()));
        return providers;
    }

    private static DeviceBackendProvider provider(final DeviceKind wanted)
    {
        final List<DeviceBackendProvider> providers = providers();
        for (final DeviceBackendProvider provider : providers)
        {
            if (wanted == null ? provider.isAvailable() : provider.kind() == wanted)
            {
                return provider;
            }
        }
        throw new DeviceException("no device back end " + (wanted == null ? "available" : "of kind " + wanted) +
            " among " + providers.size() + " provider(s)");
    }
}
