package io.stagecoach.device.cuda;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

import io.stagecoach.device.DeviceException;
import jcuda.Pointer;
import jcuda.driver.CUDA_KERNEL_NODE_PARAMS;
import jcuda.driver.CUcontext;
import jcuda.driver.CUdevice;
import jcuda.driver.CUdevice_attribute;
import jcuda.driver.CUfunction;
import jcuda.driver.CUgraph;
import jcuda.driver.CUgraphExec;
import jcuda.driver.CUgraphNode;
import jcuda.driver.CUmodule;
import jcuda.driver.CUstream;

import static jcuda.driver.JCudaDriver.cuCtxSetCurrent;
import static jcuda.driver.JCudaDriver.cuDeviceGet;
import static jcuda.driver.JCudaDriver.cuDeviceGetAttribute;
import static jcuda.driver.JCudaDriver.cuDeviceGetName;
import static jcuda.driver.JCudaDriver.cuDevicePrimaryCtxRelease;
import static jcuda.driver.JCudaDriver.cuDevicePrimaryCtxRetain;
import static jcuda.driver.JCudaDriver.cuGraphAddKernelNode;
import static jcuda.driver.JCudaDriver.cuGraphCreate;
import static jcuda.driver.JCudaDriver.cuGraphDestroy;
import static jcuda.driver.JCudaDriver.cuGraphExecDestroy;
import static jcuda.driver.JCudaDriver.cuGraphInstantiate;
import static jcuda.driver.JCudaDriver.cuGraphLaunch;
import static jcuda.driver.JCudaDriver.cuLaunchKernel;
import static jcuda.driver.JCudaDriver.cuModuleGetFunction;
import static jcuda.driver.JCudaDriver.cuModuleLoadData;
import static jcuda.driver.JCudaDriver.cuModuleUnload;

/**
 * One GPU: its primary context, made current on a calling thread only when it is not already, and the kernel module
 * loaded from the PTX resource on first use.
 */
final class CudaDevice
{
    static final String PTX_RESOURCE = "/io/stagecoach/device/cuda/stagecoach_kernels.ptx";

    private static final ThreadLocal<CudaDevice[]> CURRENT = ThreadLocal.withInitial(() -> new CudaDevice[1]);

    private final int ordinal;
    private final CUdevice device = new CUdevice();
    private final CUcontext context = new CUcontext();
    private final String name;
    private final int multiprocessors;
    private final boolean streamMemoryOperations;
    private final Map<String, CUfunction> functions = new HashMap<>();
    private final EventSlots eventSlots = new EventSlots(this);
    private CUmodule module;

    CudaDevice(final int ordinal)
    {
        this.ordinal = ordinal;
        Cuda.check(cuDeviceGet(device, ordinal), "cuDeviceGet(" + ordinal + ")");
        Cuda.check(cuDevicePrimaryCtxRetain(context, device), "cuDevicePrimaryCtxRetain(device " + ordinal + ")");
        final byte[] nameBytes = new byte[256];
        Cuda.check(cuDeviceGetName(nameBytes, nameBytes.length, device), "cuDeviceGetName(device " + ordinal + ")");
        int length = 0;
        while (length < nameBytes.length && nameBytes[length] != 0)
        {
            length++;
        }
        name = new String(nameBytes, 0, length, java.nio.charset.StandardCharsets.US_ASCII);
        final int[] value = new int[1];
        Cuda.check(cuDeviceGetAttribute(value, CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, device),
            "cuDeviceGetAttribute(MULTIPROCESSOR_COUNT, device " + ordinal + ")");
        multiprocessors = value[0];
        final int[] memoryOperations = new int[1];
        streamMemoryOperations = cuDeviceGetAttribute(memoryOperations,
            CUdevice_attribute.CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS, device) == 0 &&
            memoryOperations[0] == 1;
    }

    int ordinal()
    {
        return ordinal;
    }

    String name()
    {
        return name;
    }

    int multiprocessors()
    {
        return multiprocessors;
    }

    CUcontext context()
    {
        return context;
    }

    /**
     * @return true when streams can write and wait on 64-bit values ({@code cuStreamWriteValue64}), which flag
     * events need.
     */
    boolean hasStreamMemoryOperations()
    {
        return streamMemoryOperations;
    }

    EventSlots eventSlots()
    {
        return eventSlots;
    }

    void makeCurrent()
    {
        final CudaDevice[] current = CURRENT.get();
        if (current[0] != this)
        {
            Cuda.check(cuCtxSetCurrent(context), "cuCtxSetCurrent(device " + ordinal + ")");
            current[0] = this;
        }
    }

    synchronized CUfunction function(final String kernel)
    {
        CUfunction function = functions.get(kernel);
        if (function == null)
        {
            makeCurrent();
            if (module == null)
            {
                module = new CUmodule();
                Cuda.check(cuModuleLoadData(module, ptx()), "cuModuleLoadData(" + PTX_RESOURCE + ", device " +
                    ordinal + ")");
            }
            function = new CUfunction();
            Cuda.check(cuModuleGetFunction(function, module, kernel), "cuModuleGetFunction(" + kernel + ")");
            functions.put(kernel, function);
        }
        return function;
    }

    void launch(final PreparedLaunch launch, final CUstream stream)
    {
        makeCurrent();
        final int result = cuLaunchKernel(launch.function, launch.blocks, 1, 1, KernelPlan.THREADS, 1, 1, 0, stream,
            launch.parameters(), null);
        if (result != 0)
        {
            throw Cuda.failure(result, "cuLaunchKernel(" + launch.description + ")");
        }
    }

    CUgraphExec instantiate(final LaunchPlan plan)
    {
        return instantiate(new LaunchPlan[] {plan});
    }

    /**
     * @param plans kernels with no order between them, one graph node each: the GPU runs them side by side.
     * @return the instantiated graph.
     */
    CUgraphExec instantiate(final LaunchPlan[] plans)
    {
        makeCurrent();
        final CUgraph graph = new CUgraph();
        Cuda.check(cuGraphCreate(graph, 0), "cuGraphCreate");
        try
        {
            for (final LaunchPlan plan : plans)
            {
                final CUgraphNode node = new CUgraphNode();
                Cuda.check(cuGraphAddKernelNode(node, graph, new CUgraphNode[0], 0, nodeParameters(plan)),
                    "cuGraphAddKernelNode(" + plan + ")");
            }
            final CUgraphExec exec = new CUgraphExec();
            Cuda.check(cuGraphInstantiate(exec, graph, 0), "cuGraphInstantiate(" + plans.length + " kernels, first " +
                plans[0] + ")");
            return exec;
        }
        finally
        {
            Cuda.check(cuGraphDestroy(graph), "cuGraphDestroy");
        }
    }

    private CUDA_KERNEL_NODE_PARAMS nodeParameters(final LaunchPlan plan)
    {
        final ByteBuffer arguments = ByteBuffer.allocateDirect(plan.argumentBytes()).order(ByteOrder.LITTLE_ENDIAN);
        plan.writeArguments(arguments);
        final CUDA_KERNEL_NODE_PARAMS parameters = new CUDA_KERNEL_NODE_PARAMS();
        parameters.func = function(plan.kernel());
        parameters.gridDimX = (int)plan.blocks();
        parameters.gridDimY = 1;
        parameters.gridDimZ = 1;
        parameters.blockDimX = KernelPlan.THREADS;
        parameters.blockDimY = 1;
        parameters.blockDimZ = 1;
        parameters.sharedMemBytes = 0;
        parameters.kernelParams = Pointer.to(Pointer.to(arguments));
        parameters.extra = null;
        return parameters;
    }

    void launch(final CUgraphExec exec, final CUstream stream)
    {
        makeCurrent();
        final int result = cuGraphLaunch(exec, stream);
        if (result != 0)
        {
            throw Cuda.failure(result, "cuGraphLaunch(device " + ordinal + ")");
        }
    }

    void destroy(final CUgraphExec exec)
    {
        makeCurrent();
        Cuda.check(cuGraphExecDestroy(exec), "cuGraphExecDestroy");
    }

    synchronized void close()
    {
        makeCurrent();
        eventSlots.close();
        if (module != null)
        {
            Cuda.check(cuModuleUnload(module), "cuModuleUnload(device " + ordinal + ")");
            module = null;
            functions.clear();
        }
        Cuda.check(cuDevicePrimaryCtxRelease(device), "cuDevicePrimaryCtxRelease(device " + ordinal + ")");
        CURRENT.get()[0] = null;
    }

    private static byte[] ptx()
    {
        try (InputStream in = CudaDevice.class.getResourceAsStream(PTX_RESOURCE))
        {
            if (in == null)
            {
                throw new DeviceException("kernel resource " + PTX_RESOURCE + " missing from the class path");
            }
            final byte[] text = in.readAllBytes();
            return Arrays.copyOf(text, text.length + 1);
        }
        catch (final IOException ex)
        {
            throw new DeviceException("cannot read kernel resource " + PTX_RESOURCE, ex);
        }
    }
}
