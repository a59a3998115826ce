package io.stagecoach.device.emulated;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import io.stagecoach.device.BackendBatch;
import io.stagecoach.device.BackendEvent;
import io.stagecoach.device.BackendModule;
import io.stagecoach.device.BackendPacker;
import io.stagecoach.device.BackendStream;
import io.stagecoach.device.BackendTranscoder;
import io.stagecoach.device.DeviceBackend;
import io.stagecoach.device.DeviceContext;
import io.stagecoach.device.DeviceException;
import io.stagecoach.device.DeviceKind;
import io.stagecoach.device.IpcHandle;
import io.stagecoach.device.KernelSource;
import io.stagecoach.device.MemoryRegion;
import io.stagecoach.protocol.datatype.CompiledType;

/**
 * The emulated device: memory from the process' {@link EmulatedDriver}, streams run by a pool of worker threads,
 * kernels as Java loops over the datatype's compiled form.
 */
final class EmulatedBackend implements DeviceBackend
{
    private static final long IPC_MAGIC = 0x53434555_4d495043L;

    private final EmulatedDriver driver;
    private final ExecutorService workers;
    private final AtomicLong exports = new AtomicLong();

    EmulatedBackend(final DeviceContext context)
    {
        this.driver = EmulatedDriver.forContext(context);
        final AtomicInteger threadNumber = new AtomicInteger();
        this.workers = Executors.newFixedThreadPool(context.emulatedWorkerThreads(), runnable ->
        {
            final Thread thread = new Thread(runnable, "stagecoach-emulated-stream-" + threadNumber.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
    }

    @Override
    public DeviceKind kind()
    {
        return DeviceKind.EMULATED;
    }

    @Override
    public int deviceCount()
    {
        return driver.deviceCount();
    }

    @Override
    public String deviceName(final int device)
    {
        return "emulated device " + device;
    }

    @Override
    public long allocateDevice(final int device, final long lengthBytes)
    {
        return driver.device(device).allocate(lengthBytes);
    }

    @Override
    public void freeDevice(final int device, final long address)
    {
        driver.freed(address);
        driver.device(device).free(address);
    }

    @Override
    public long allocatePinned(final long lengthBytes)
    {
        return driver.pinned().allocate(lengthBytes);
    }

    @Override
    public long mappedDeviceAddress(final long hostAddress)
    {
        return hostAddress;
    }

    @Override
    public void freePinned(final long hostAddress)
    {
        driver.pinned().free(hostAddress);
    }

    @Override
    public void registerHost(final long address, final long lengthBytes)
    {
        driver.register(address, lengthBytes);
    }

    @Override
    public void unregisterHost(final long address)
    {
        driver.unregister(address);
    }

    @Override
    public MemoryRegion query(final long address)
    {
        return driver.query(address);
    }

    @Override
    public BackendStream createStream(final int device)
    {
        return new EmulatedStream(device, workers);
    }

    @Override
    public BackendEvent createEvent(final int device)
    {
        return new EmulatedEvent(device);
    }

    @Override
    public BackendPacker createPacker(final int device, final CompiledType type)
    {
        return new EmulatedPacker(type);
    }

    @Override
    public BackendTranscoder createTranscoder(
        final int device, final BackendPacker source, final BackendPacker destination)
    {
        return new EmulatedTranscoder(((EmulatedPacker)source).type(), ((EmulatedPacker)destination).type());
    }

    @Override
    public BackendBatch createBatch(final int device, final BackendBatch.Move[] moves)
    {
        return new EmulatedBatch(moves.clone());
    }

    @Override
    public BackendModule loadModule(final int device, final KernelSource source)
    {
        return new EmulatedModule(source);
    }

    /**
     * The handle of an allocation names the owner's process and folder, the device and the allocation's offset in
     * it, and, as CUDA's handles do, the allocation itself: a number of its own (the runtime exports each allocation
     * once), so that a new allocation at the address of a freed one has another handle, and a peer that mapped the
     * old one maps the new one afresh rather than reusing the old mapping, with the old allocation's length. The export
     * is marked in this process's folder until the allocation is freed; a handle opened after that is refused.
     */
    @Override
    public byte[] exportIpc(final int device, final long allocationStart)
    {
        final byte[] opaque = new byte[IpcHandle.OPAQUE_BYTES];
        final long number = exports.incrementAndGet();
        ByteBuffer.wrap(opaque).order(ByteOrder.LITTLE_ENDIAN)
            .putLong(IPC_MAGIC)
            .putLong(driver.processId())
            .putLong(driver.folderToken())
            .putLong(device)
            .putLong(allocationStart - driver.device(device).baseAddress())
            .putLong(number);
        driver.exported(device, allocationStart, number);
        return opaque;
    }

    @Override
    public long openIpc(final int device, final byte[] opaque)
    {
        final ByteBuffer buffer = ByteBuffer.wrap(opaque).order(ByteOrder.LITTLE_ENDIAN);
        if (buffer.getLong() != IPC_MAGIC)
        {
            throw new DeviceException("IPC handle was not exported by an emulated device");
        }
        final long processId = buffer.getLong();
        final long folderToken = buffer.getLong();
        final int ownerDevice = (int)buffer.getLong();
        final long offset = buffer.getLong();
        final long number = buffer.getLong();
        return driver.openForeign(processId, folderToken, ownerDevice, offset, number);
    }

    @Override
    public void closeIpc(final long address)
    {
        driver.closeForeign(address);
    }

    @Override
    public void close()
    {
        workers.shutdown();
    }
}
