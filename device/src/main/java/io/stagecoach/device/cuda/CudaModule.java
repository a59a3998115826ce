package io.stagecoach.device.cuda;

import io.stagecoach.device.BackendKernel;
import io.stagecoach.device.BackendModule;
import io.stagecoach.device.BackendStream;
import io.stagecoach.device.KernelArguments;
import io.stagecoach.device.KernelSource;
import io.stagecoach.device.LaunchShape;
import jcuda.driver.CUfunction;
import jcuda.driver.CUmodule;
import jcuda.driver.CUresult;

import static jcuda.driver.JCudaDriver.cuLaunchKernel;
import static jcuda.driver.JCudaDriver.cuModuleGetFunction;
import static jcuda.driver.JCudaDriver.cuModuleLoadData;
import static jcuda.driver.JCudaDriver.cuModuleUnload;

/**
 * An application's module loaded from its PTX into the device's primary context; a launch hands the driver the raw
 * address of the arguments' parameter array, so that it marshals no Java objects.
 */
final class CudaModule implements BackendModule
{
    private final CudaDevice device;
    private final String name;
    private final CUmodule module = new CUmodule();

    CudaModule(final CudaDevice device, final KernelSource source)
    {
        this.device = device;
        this.name = source.name();
        final byte[] ptx = source.ptx();
        device.makeCurrent();
        Cuda.check(cuModuleLoadData(module, ptx), "cuModuleLoadData(module " + name + ", device " +
            device.ordinal() + ")");
    }

    @Override
    public BackendKernel kernel(final String kernel)
    {
        device.makeCurrent();
        final CUfunction function = new CUfunction();
        final int result = cuModuleGetFunction(function, module, kernel);
        if (result == CUresult.CUDA_ERROR_NOT_FOUND)
        {
            throw Cuda.failure(result, "cuModuleGetFunction(" + kernel + "): module " + name + " has no such kernel");
        }
        Cuda.check(result, "cuModuleGetFunction(" + kernel + ", module " + name + ")");
        return new Launcher(function, kernel);
    }

    @Override
    public void close()
    {
        device.makeCurrent();
        Cuda.check(cuModuleUnload(module), "cuModuleUnload(module " + name + ", device " + device.ordinal() + ")");
    }

    private final class Launcher implements BackendKernel
    {
        private final CUfunction function;
        private final String kernel;
        private long parametersAddress;
        private HostPointer parameters;

        Launcher(final CUfunction function, final String kernel)
        {
            this.function = function;
            this.kernel = kernel;
        }

        @Override
        public void launch(final BackendStream stream, final LaunchShape shape, final KernelArguments arguments)
        {
            device.makeCurrent();
            final int result = cuLaunchKernel(function, shape.gridX(), shape.gridY(), shape.gridZ(), shape.blockX(),
                shape.blockY(), shape.blockZ(), 0, ((CudaStream)stream).stream(), parameters(arguments), null);
            if (result != CUresult.CUDA_SUCCESS)
            {
                throw Cuda.failure(result, "cuLaunchKernel(" + kernel + " of module " + name + ", " + shape + ", " +
                    arguments + ")");
            }
        }

        private HostPointer parameters(final KernelArguments arguments)
        {
            final long address = arguments.parameterArrayAddress();
            if (address != parametersAddress)
            {
                parametersAddress = address;
                parameters = new HostPointer(address);
            }
            return parameters;
        }
    }
}
