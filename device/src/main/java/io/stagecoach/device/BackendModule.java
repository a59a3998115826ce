package io.stagecoach.device;

/**
 * A back end's loaded module of kernels (a CUDA module loaded from PTX, or the Java bodies for the emulated device).
 * Arguments are validated by {@link KernelModule} and {@link Kernel} first.
 */
public interface BackendModule
{
    /**
     * @param name of a kernel of the module ({@code extern "C"}, unmangled).
     * @return the kernel.
     * @throws DeviceException when the module has no such kernel, naming it.
     */
    BackendKernel kernel(String name);

    /**
     * Unload the module; its kernels are not launched again.
     */
    void close();
}
