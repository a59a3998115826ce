package io.stagecoach.device;

import io.stagecoach.protocol.datatype.CompiledType;

/**
 * The service-provider interface a back end implements. Applications use {@link DeviceRuntime}, which validates every
 * request (ranges, liveness, memory types), caches the memory map and the packers, and drives completions; a back end
 * only performs the primitive operations, on arguments already checked.
 * <p>
 * Addresses are raw 64-bit values in one address space shared by host and devices (unified virtual addressing).
 */
public interface DeviceBackend extends AutoCloseable
{
    /**
     * @return which back end this is.
     */
    DeviceKind kind();

    /**
     * @return number of devices visible, at least one.
     */
    int deviceCount();

    /**
     * @param device ordinal.
     * @return a readable name of the device.
     */
    String deviceName(int device);

    /**
     * @param device      ordinal.
     * @param lengthBytes to allocate, greater than zero.
     * @return the device address of the allocation.
     */
    long allocateDevice(int device, long lengthBytes);

    /**
     * @param device  ordinal the memory belongs to.
     * @param address returned by {@link #allocateDevice(int, long)}.
     */
    void freeDevice(int device, long address);

    /**
     * Allocate page-locked host memory mapped into every device's address space.
     *
     * @param lengthBytes to allocate, greater than zero.
     * @return the host address.
     */
    long allocatePinned(long lengthBytes);

    /**
     * @param hostAddress returned by {@link #allocatePinned(long)} or {@link #registerHost(long, long)}.
     * @return the address a kernel uses for it.
     */
    long mappedDeviceAddress(long hostAddress);

    /**
     * @param hostAddress returned by {@link #allocatePinned(long)}.
     */
    void freePinned(long hostAddress);

    /**
     * Page-lock and map existing host memory.
     *
     * @param address     start of the host range.
     * @param lengthBytes of the range.
     */
    void registerHost(long address, long lengthBytes);

    /**
     * @param address passed to {@link #registerHost(long, long)}.
     */
    void unregisterHost(long address);

    /**
     * Ask the driver what an address is that this runtime neither allocated nor registered.
     *
     * @param address to ask about.
     * @return the allocation range holding it, or null for pageable host memory.
     * @throws DeviceException when the address lies in device memory that is no longer allocated, where the back end
     *                         can tell.
     */
    MemoryRegion query(long address);

    /**
     * @param device the stream runs on.
     * @return a new non-blocking stream.
     */
    BackendStream createStream(int device);

    /**
     * @param device the event belongs to.
     * @return a new event, never recorded.
     */
    BackendEvent createEvent(int device);

    /**
     * Build what a device needs to pack and unpack one datatype: argument buffers, node code uploaded once.
     *
     * @param device the kernels run on.
     * @param type   the committed datatype's compiled form.
     * @return the packer.
     */
    BackendPacker createPacker(int device, CompiledType type);

    /**
     * Build what a device needs to copy between two datatypes' layouts in one kernel, from their packers (whose node
     * code it uses, and which outlive it).
     *
     * @param device      the copies run on.
     * @param source      packer of the source's datatype on that device.
     * @param destination packer of the destination's datatype on that device.
     * @return the transcoder.
     */
    BackendTranscoder createTranscoder(int device, BackendPacker source, BackendPacker destination);

    /**
     * @param device the moves run on.
     * @param moves  checked moves of packers of that device, at least one.
     * @return the batch, launched as one.
     */
    BackendBatch createBatch(int device, BackendBatch.Move[] moves);

    /**
     * Load an application's kernels: the source's PTX on a GPU, its Java bodies on the emulated device.
     *
     * @param device the kernels run on.
     * @param source the module's PTX and Java bodies.
     * @return the loaded module.
     * @throws DeviceException when the source has nothing this back end can run, or the driver refuses it.
     */
    BackendModule loadModule(int device, KernelSource source);

    /**
     * @param device          the allocation belongs to.
     * @param allocationStart start address of a device allocation.
     * @return an opaque handle of {@link IpcHandle#OPAQUE_BYTES} bytes another process on this node can open.
     */
    byte[] exportIpc(int device, long allocationStart);

    /**
     * @param device the allocation belongs to (in the exporting process' numbering).
     * @param opaque bytes from {@link #exportIpc(int, long)} in another process.
     * @return the local address of the start of the allocation.
     */
    long openIpc(int device, byte[] opaque);

    /**
     * @param address returned by {@link #openIpc(int, byte[])}.
     */
    void closeIpc(long address);

    /**
     * Release everything the back end holds.
     */
    @Override
    void close();
}
