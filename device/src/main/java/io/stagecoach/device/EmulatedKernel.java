package io.stagecoach.device;

/**
 * The Java body of a kernel, run in stream order by the emulated device where a CUDA device runs the kernel's PTX.
 * It does all the kernel's threads' work in one call; device addresses among its arguments are addresses of this
 * process that it reads and writes directly (as {@code org.agrona.UnsafeApi} does).
 */
@FunctionalInterface
public interface EmulatedKernel
{
    /**
     * @param arguments a copy of the arguments of the launch, taken when it was enqueued.
     */
    void run(KernelArguments arguments);
}
