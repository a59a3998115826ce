package io.stagecoach.device;

/**
 * One kernel of a {@link BackendModule}.
 */
public interface BackendKernel
{
    /**
     * Enqueue a launch.
     *
     * @param stream    of the module's device.
     * @param shape     grid and block.
     * @param arguments the kernel's parameters in order; read before this returns.
     */
    void launch(BackendStream stream, LaunchShape shape, KernelArguments arguments);
}
