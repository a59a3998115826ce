package io.stagecoach.device;

/**
 * One kernel of a {@link KernelModule}, launched in a {@link DeviceStream} like any other device work: the launch
 * returns at once, and the kernel runs after the work enqueued before it.
 */
public final class Kernel
{
    private final KernelModule module;
    private final String name;
    private final BackendKernel backend;

    Kernel(final KernelModule module, final String name, final BackendKernel backend)
    {
        this.module = module;
        this.name = name;
        this.backend = backend;
    }

    /**
     * Enqueue a launch.
     *
     * @param stream    a stream of the module's device.
     * @param shape     grid and block.
     * @param arguments the kernel's parameters, in order; read before this returns, so they may be changed at once.
     * @throws IllegalArgumentException when the stream runs on another device, naming both.
     * @throws DeviceException          when the module or the stream was closed, or the launch fails.
     */
    public void launch(final DeviceStream stream, final LaunchShape shape, final KernelArguments arguments)
    {
        module.ensureOpen();
        if (stream.device() != module.device())
        {
            throw new IllegalArgumentException("kernel " + name + " of device " + module.device() +
                " launched in a stream of device " + stream.device());
        }
        backend.launch(stream.backend(), shape, arguments);
    }

    /**
     * @return the kernel's name.
     */
    public String name()
    {
        return name;
    }

    @Override
    public String toString()
    {
        return "kernel " + name + " of " + module;
    }
}
