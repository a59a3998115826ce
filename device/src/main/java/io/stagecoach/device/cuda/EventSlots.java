package io.stagecoach.device.cuda;

import java.util.ArrayList;
import java.util.List;

import org.agrona.UnsafeApi;
import org.agrona.collections.IntArrayQueue;

import static jcuda.driver.JCudaDriver.CU_MEMHOSTALLOC_DEVICEMAP;
import static jcuda.driver.JCudaDriver.CU_MEMHOSTALLOC_PORTABLE;
import static jcuda.driver.JCudaDriver.cuCtxSynchronize;
import static jcuda.driver.JCudaDriver.cuMemAlloc;
import static jcuda.driver.JCudaDriver.cuMemFree;
import static jcuda.driver.JCudaDriver.cuMemFreeHost;
import static jcuda.driver.JCudaDriver.cuMemHostAlloc;
import static jcuda.driver.JCudaDriver.cuMemHostGetDevicePointer;
import static jcuda.driver.JCudaDriver.cuMemsetD8;

/**
 * Storage of one device's flag events, in chunks: 16 bytes of mapped pinned host memory per event, the host polls
 * with plain loads (the count of recordings written by the stream, then the count of kernels that signalled), and 16
 * bytes of device memory (the kernels' block counter, then their count). A slot keeps both counts across reuse.
 */
final class EventSlots
{
    static final int SLOTS_PER_CHUNK = 512;
    static final int SLOT_BYTES = 16;
    static final int DEVICE_BYTES = 16;

    static final class Slot
    {
        final int index;
        final long hostAddress;
        final long deviceAddress;
        final long scratchAddress;
        long written;
        long signalled;

        Slot(final int index, final long hostAddress, final long deviceAddress, final long scratchAddress)
        {
            this.index = index;
            this.hostAddress = hostAddress;
            this.deviceAddress = deviceAddress;
            this.scratchAddress = scratchAddress;
        }
    }

    private final CudaDevice device;
    private final List<HostPointer> hostChunks = new ArrayList<>();
    private final List<DevicePointer> deviceChunks = new ArrayList<>();
    private final List<Slot> slots = new ArrayList<>();
    private final IntArrayQueue free = new IntArrayQueue();

    EventSlots(final CudaDevice device)
    {
        this.device = device;
    }

    synchronized Slot acquire()
    {
        if (free.isEmpty())
        {
            grow();
        }
        return slots.get(free.pollInt());
    }

    synchronized void release(final Slot slot)
    {
        free.addInt(slot.index);
    }

    synchronized void close()
    {
        device.makeCurrent();
        for (final HostPointer chunk : hostChunks)
        {
            Cuda.check(cuMemFreeHost(chunk), "cuMemFreeHost(event slots)");
        }
        for (final DevicePointer chunk : deviceChunks)
        {
            Cuda.check(cuMemFree(chunk), "cuMemFree(event scratch)");
        }
        hostChunks.clear();
        deviceChunks.clear();
        slots.clear();
        free.clear();
    }

    private void grow()
    {
        device.makeCurrent();
        final HostPointer host = new HostPointer();
        Cuda.check(cuMemHostAlloc(host, (long)SLOTS_PER_CHUNK * SLOT_BYTES,
            CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_PORTABLE), "cuMemHostAlloc(event slots)");
        final DevicePointer mapped = new DevicePointer();
        Cuda.check(cuMemHostGetDevicePointer(mapped, host, 0), "cuMemHostGetDevicePointer(event slots)");
        final DevicePointer scratch = new DevicePointer();
        Cuda.check(cuMemAlloc(scratch, (long)SLOTS_PER_CHUNK * DEVICE_BYTES), "cuMemAlloc(event scratch)");
        Cuda.check(cuMemsetD8(scratch, (byte)0, (long)SLOTS_PER_CHUNK * DEVICE_BYTES), "cuMemsetD8(event scratch)");
        Cuda.check(cuCtxSynchronize(), "cuCtxSynchronize(after zeroing event scratch)");
        UnsafeApi.setMemory(host.address(), (long)SLOTS_PER_CHUNK * SLOT_BYTES, (byte)0);
        hostChunks.add(host);
        deviceChunks.add(scratch);
        final long hostBase = host.address();
        for (int i = 0; i < SLOTS_PER_CHUNK; i++)
        {
            final int index = slots.size();
            slots.add(new Slot(index, hostBase + (long)i * SLOT_BYTES, mapped.address() + (long)i * SLOT_BYTES,
                scratch.address() + (long)i * DEVICE_BYTES));
            free.addInt(index);
        }
    }
}
