package io.stagecoach.device.emulated;

import io.stagecoach.device.BackendKernel;
import io.stagecoach.device.BackendModule;
import io.stagecoach.device.DeviceException;
import io.stagecoach.device.EmulatedKernel;
import io.stagecoach.device.KernelArguments;
import io.stagecoach.device.KernelSource;

/**
 * An application's module on the emulated device: its kernels are the source's Java bodies, each launch an op of the
 * stream that runs the body with a copy of the arguments, in order with the stream's copies and events. A body that
 * throws fails the stream, as a faulting kernel fails a CUDA context.
 */
final class EmulatedModule implements BackendModule
{
    private final KernelSource source;

    EmulatedModule(final KernelSource source)
    {
        this.source = source;
    }

    @Override
    public BackendKernel kernel(final String kernel)
    {
        final EmulatedKernel body = source.emulatedKernel(kernel);
        if (body == null)
        {
            throw new DeviceException("kernel module " + source.name() + " has no Java body for kernel " + kernel +
                ", which the emulated device needs (it has " + source.emulatedKernels() + ")");
        }
        return (stream, shape, arguments) ->
        {
            final KernelArguments copy = arguments.copy();
            ((EmulatedStream)stream).enqueue(streamFailure ->
            {
                if (streamFailure == null)
                {
                    body.run(copy);
                }
            });
        };
    }

    @Override
    public void close()
    {
    }
}
