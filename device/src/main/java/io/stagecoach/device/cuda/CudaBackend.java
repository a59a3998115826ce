package io.stagecoach.device.cuda;

import java.lang.reflect.Field;

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
import io.stagecoach.device.KernelSource;
import io.stagecoach.device.MemoryRegion;
import io.stagecoach.device.MemoryType;
import io.stagecoach.protocol.datatype.CompiledType;
import jcuda.Pointer;
import jcuda.driver.CUipcMemHandle;
import jcuda.driver.CUipcMem_flags;
import jcuda.driver.CUmemorytype;
import jcuda.driver.CUpointer_attribute;
import jcuda.driver.CUresult;
import jcuda.driver.JCudaDriver;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import static jcuda.driver.JCudaDriver.CU_MEMHOSTALLOC_DEVICEMAP;
import static jcuda.driver.JCudaDriver.CU_MEMHOSTALLOC_PORTABLE;
import static jcuda.driver.JCudaDriver.CU_MEMHOSTREGISTER_DEVICEMAP;
import static jcuda.driver.JCudaDriver.CU_MEMHOSTREGISTER_PORTABLE;
import static jcuda.driver.JCudaDriver.CU_MEMHOSTREGISTER_READ_ONLY;
import static jcuda.driver.JCudaDriver.cuCtxEnablePeerAccess;
import static jcuda.driver.JCudaDriver.cuDeviceCanAccessPeer;
import static jcuda.driver.JCudaDriver.cuDeviceGet;
import static jcuda.driver.JCudaDriver.cuDeviceGetCount;
import static jcuda.driver.JCudaDriver.cuInit;
import static jcuda.driver.JCudaDriver.cuIpcCloseMemHandle;
import static jcuda.driver.JCudaDriver.cuIpcGetMemHandle;
import static jcuda.driver.JCudaDriver.cuIpcOpenMemHandle;
import static jcuda.driver.JCudaDriver.cuMemAlloc;
import static jcuda.driver.JCudaDriver.cuMemFree;
import static jcuda.driver.JCudaDriver.cuMemFreeHost;
import static jcuda.driver.JCudaDriver.cuMemHostAlloc;
import static jcuda.driver.JCudaDriver.cuMemHostGetDevicePointer;
import static jcuda.driver.JCudaDriver.cuMemHostRegister;
import static jcuda.driver.JCudaDriver.cuMemHostUnregister;
import static jcuda.driver.JCudaDriver.cuPointerGetAttribute;

/**
 * NVIDIA GPUs through the CUDA driver API (JCuda 12.6). JCuda's exceptions are switched off: every result is checked
 * by {@link Cuda#check(int, String)}, and {@code CUDA_ERROR_NOT_READY} stays a return code.
 */
final class CudaBackend implements DeviceBackend
{
    private static final Logger LOG = LoggerFactory.getLogger(CudaBackend.class);
    private static final Field IPC_HANDLE_BYTES = ipcHandleField();

    private final DeviceContext context;
    private final CudaDevice[] devices;

    CudaBackend(final DeviceContext context)
    {
        this.context = context;
        JCudaDriver.setExceptionsEnabled(false);
        Cuda.check(cuInit(0), "cuInit");
        final int[] count = new int[1];
        Cuda.check(cuDeviceGetCount(count), "cuDeviceGetCount");
        if (count[0] < 1)
        {
            throw new DeviceException("no CUDA device visible");
        }
        devices = new CudaDevice[count[0]];
        for (int d = 0; d < devices.length; d++)
        {
            devices[d] = new CudaDevice(d);
        }
        enablePeerAccess();
    }

    @Override
    public DeviceKind kind()
    {
        return DeviceKind.CUDA;
    }

    @Override
    public int deviceCount()
    {
        return devices.length;
    }

    @Override
    public String deviceName(final int device)
    {
        return devices[device].name();
    }

    @Override
    public long allocateDevice(final int device, final long lengthBytes)
    {
        devices[device].makeCurrent();
        final DevicePointer pointer = new DevicePointer();
        Cuda.check(cuMemAlloc(pointer, lengthBytes), "cuMemAlloc(" + lengthBytes + " bytes on device " + device + ")");
        return pointer.address();
    }

    @Override
    public void freeDevice(final int device, final long address)
    {
        devices[device].makeCurrent();
        Cuda.check(cuMemFree(new DevicePointer(address)), "cuMemFree(0x" + Long.toHexString(address) + ")");
    }

    @Override
    public long allocatePinned(final long lengthBytes)
    {
        devices[0].makeCurrent();
        final HostPointer pointer = new HostPointer();
        Cuda.check(cuMemHostAlloc(pointer, lengthBytes, CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_PORTABLE),
            "cuMemHostAlloc(" + lengthBytes + " bytes, DEVICEMAP | PORTABLE)");
        return pointer.address();
    }

    @Override
    public long mappedDeviceAddress(final long hostAddress)
    {
        devices[0].makeCurrent();
        final DevicePointer pointer = new DevicePointer();
        Cuda.check(cuMemHostGetDevicePointer(pointer, new HostPointer(hostAddress), 0),
            "cuMemHostGetDevicePointer(0x" + Long.toHexString(hostAddress) + ")");
        return pointer.address();
    }

    @Override
    public void freePinned(final long hostAddress)
    {
        devices[0].makeCurrent();
        Cuda.check(cuMemFreeHost(new HostPointer(hostAddress)), "cuMemFreeHost(0x" + Long.toHexString(hostAddress) +
            ")");
    }

    @Override
    public void registerHost(final long address, final long lengthBytes)
    {
        devices[0].makeCurrent();
        final int flags = CU_MEMHOSTREGISTER_DEVICEMAP | CU_MEMHOSTREGISTER_PORTABLE;
        final int result = cuMemHostRegister(new HostPointer(address), lengthBytes, flags);
        if (result != CUresult.CUDA_SUCCESS &&
            cuMemHostRegister(new HostPointer(address), lengthBytes, flags | CU_MEMHOSTREGISTER_READ_ONLY) ==
            CUresult.CUDA_SUCCESS)
        {
            return;
        }
        Cuda.check(result, "cuMemHostRegister(0x" + Long.toHexString(address) + ", " + lengthBytes + " bytes)");
    }

    @Override
    public void unregisterHost(final long address)
    {
        devices[0].makeCurrent();
        Cuda.check(cuMemHostUnregister(new HostPointer(address)), "cuMemHostUnregister(0x" +
            Long.toHexString(address) + ")");
    }

    @Override
    public MemoryRegion query(final long address)
    {
        devices[0].makeCurrent();
        final DevicePointer pointer = new DevicePointer(address);
        final int[] memoryType = new int[1];
        final int result = cuPointerGetAttribute(
            Pointer.to(memoryType), CUpointer_attribute.CU_POINTER_ATTRIBUTE_MEMORY_TYPE, pointer);
        if (result == CUresult.CUDA_ERROR_INVALID_VALUE)
        {
            return null;
        }
        Cuda.check(result, "cuPointerGetAttribute(MEMORY_TYPE, 0x" + Long.toHexString(address) + ")");
        final long[] start = new long[1];
        final long[] size = new long[1];
        final boolean ranged =
            cuPointerGetAttribute(Pointer.to(start), CUpointer_attribute.CU_POINTER_ATTRIBUTE_RANGE_START_ADDR,
                pointer) == CUresult.CUDA_SUCCESS &&
            cuPointerGetAttribute(Pointer.to(size), CUpointer_attribute.CU_POINTER_ATTRIBUTE_RANGE_SIZE,
                pointer) == CUresult.CUDA_SUCCESS;
        final long startAddress = ranged ? start[0] : address;
        final long lengthBytes = ranged ? size[0] : 0;
        if (memoryType[0] == CUmemorytype.CU_MEMORYTYPE_HOST)
        {
            return new MemoryRegion(MemoryType.PINNED_HOST, -1, startAddress, lengthBytes, startAddress, false);
        }
        final int[] ordinal = new int[1];
        Cuda.check(cuPointerGetAttribute(Pointer.to(ordinal), CUpointer_attribute.CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
            pointer), "cuPointerGetAttribute(DEVICE_ORDINAL, 0x" + Long.toHexString(address) + ")");
        return new MemoryRegion(MemoryType.DEVICE, ordinal[0], startAddress, lengthBytes, startAddress, false);
    }

    @Override
    public BackendStream createStream(final int device)
    {
        return new CudaStream(devices[device]);
    }

    @Override
    public BackendEvent createEvent(final int device)
    {
        final CudaDevice owner = devices[device];
        return owner.hasStreamMemoryOperations() ? new CudaFlagEvent(owner) : new CudaEvent(owner);
    }

    @Override
    public BackendPacker createPacker(final int device, final CompiledType type)
    {
        return new CudaPacker(devices[device], type, context.launchCacheEntries());
    }

    @Override
    public BackendTranscoder createTranscoder(
        final int device, final BackendPacker source, final BackendPacker destination)
    {
        return new CudaTranscoder(devices[device], (CudaPacker)source, (CudaPacker)destination,
            context.launchCacheEntries());
    }

    @Override
    public BackendBatch createBatch(final int device, final BackendBatch.Move[] moves)
    {
        return new CudaBatch(devices[device], moves);
    }

    @Override
    public BackendModule loadModule(final int device, final KernelSource source)
    {
        return new CudaModule(devices[device], source);
    }

    @Override
    public byte[] exportIpc(final int device, final long allocationStart)
    {
        devices[device].makeCurrent();
        final CUipcMemHandle handle = new CUipcMemHandle();
        Cuda.check(cuIpcGetMemHandle(handle, new DevicePointer(allocationStart)), "cuIpcGetMemHandle(0x" +
            Long.toHexString(allocationStart) + ")");
        try
        {
            return ((byte[])IPC_HANDLE_BYTES.get(handle)).clone();
        }
        catch (final IllegalAccessException ex)
        {
            throw new DeviceException("cannot read the bytes of a CUipcMemHandle", ex);
        }
    }

    @Override
    public long openIpc(final int device, final byte[] opaque)
    {
        final CUipcMemHandle handle = new CUipcMemHandle();
        try
        {
            IPC_HANDLE_BYTES.set(handle, opaque.clone());
        }
        catch (final IllegalAccessException ex)
        {
            throw new DeviceException("cannot write the bytes of a CUipcMemHandle", ex);
        }
        devices[Math.min(device, devices.length - 1)].makeCurrent();
        final DevicePointer pointer = new DevicePointer();
        Cuda.check(cuIpcOpenMemHandle(pointer, handle, CUipcMem_flags.CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS),
            "cuIpcOpenMemHandle(device " + device + ")");
        return pointer.address();
    }

    @Override
    public void closeIpc(final long address)
    {
        devices[0].makeCurrent();
        Cuda.check(cuIpcCloseMemHandle(new DevicePointer(address)), "cuIpcCloseMemHandle(0x" +
            Long.toHexString(address) + ")");
    }

    @Override
    public void close()
    {
        for (final CudaDevice device : devices)
        {
            device.close();
        }
    }

    private void enablePeerAccess()
    {
        for (int from = 0; from < devices.length; from++)
        {
            for (int to = 0; to < devices.length; to++)
            {
                if (from != to)
                {
                    enablePeerAccess(devices[from], devices[to]);
                }
            }
        }
    }

    private static void enablePeerAccess(final CudaDevice from, final CudaDevice to)
    {
        final int[] canAccess = new int[1];
        final jcuda.driver.CUdevice fromDevice = new jcuda.driver.CUdevice();
        final jcuda.driver.CUdevice toDevice = new jcuda.driver.CUdevice();
        Cuda.check(cuDeviceGet(fromDevice, from.ordinal()), "cuDeviceGet(" + from.ordinal() + ")");
        Cuda.check(cuDeviceGet(toDevice, to.ordinal()), "cuDeviceGet(" + to.ordinal() + ")");
        Cuda.check(cuDeviceCanAccessPeer(canAccess, fromDevice, toDevice), "cuDeviceCanAccessPeer");
        if (canAccess[0] == 1)
        {
            from.makeCurrent();
            final int result = cuCtxEnablePeerAccess(to.context(), 0);
            if (result != CUresult.CUDA_SUCCESS && result != CUresult.CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED)
            {
                throw Cuda.failure(result, "cuCtxEnablePeerAccess(device " + from.ordinal() + " -> " + to.ordinal() +
                    ")");
            }
            LOG.debug("peer access enabled from device {} to device {}", from.ordinal(), to.ordinal());
        }
    }

    private static Field ipcHandleField()
    {
        try
        {
            final Field field = CUipcMemHandle.class.getDeclaredField("reserved");
            field.setAccessible(true);
            return field;
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new ExceptionInInitializerError(ex);
        }
    }
}
