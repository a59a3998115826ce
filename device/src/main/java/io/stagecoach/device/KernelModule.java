package io.stagecoach.device;

import java.util.HashMap;
import java.util.Map;
import java.util.function.Consumer;

/**
 * An application's kernels loaded on one device from a {@link KernelSource}: the PTX on a CUDA device, the Java bodies
 * on the emulated device. Made by {@link DeviceRuntime#loadModule(int, KernelSource)}; closed with the runtime at the
 * latest.
 */
public final class KernelModule implements AutoCloseable
{
    private final String name;
    private final int device;
    private final BackendModule backend;
    private final Consumer<KernelModule> onClose;
    private final Map<String, Kernel> kernels = new HashMap<>();
    private volatile boolean closed;

    KernelModule(final String name, final int device, final BackendModule backend, final Consumer<KernelModule> onClose)
    {
        this.name = name;
        this.device = device;
        this.backend = backend;
        this.onClose = onClose;
    }

    /**
     * @param kernel name of a kernel of the module ({@code extern "C"}, unmangled).
     * @return the kernel, looked up once.
     * @throws DeviceException when the module has no such kernel, naming both.
     */
    public synchronized Kernel kernel(final String kernel)
    {
        ensureOpen();
        Kernel found = kernels.get(kernel);
        if (found == null)
        {
            found = new Kernel(this, kernel, backend.kernel(kernel));
            kernels.put(kernel, found);
        }
        return found;
    }

    /**
     * @return the module's name.
     */
    public String name()
    {
        return name;
    }

    /**
     * @return the device the module is loaded on.
     */
    public int device()
    {
        return device;
    }

    /**
     * Unload the module; launches of its kernels fail from now on. Work already enqueued runs.
     */
    @Override
    public synchronized void close()
    {
        if (!closed)
        {
            closed = true;
            kernels.clear();
            backend.close();
            onClose.accept(this);
        }
    }

    void ensureOpen()
    {
        if (closed)
        {
            throw new DeviceException("kernel module " + name + " of device " + device + " used after close");
        }
    }

    @Override
    public String toString()
    {
        return "kernel module " + name + " on device " + device;
    }
}
