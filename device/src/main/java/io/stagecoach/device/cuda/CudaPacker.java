package io.stagecoach.device.cuda;

import io.stagecoach.device.BackendEvent;
import io.stagecoach.device.BackendPacker;
import io.stagecoach.device.BackendStream;
import io.stagecoach.protocol.datatype.CompiledType;
import jcuda.Pointer;
import jcuda.driver.CUstream;

import static jcuda.driver.JCudaDriver.cuMemAlloc;
import static jcuda.driver.JCudaDriver.cuMemFree;
import static jcuda.driver.JCudaDriver.cuMemcpyHtoD;

/**
 * The CUDA pack and unpack kernels of one datatype on one device. The node code is uploaded once. A call seen for the
 * first time is a plain launch with arguments written into one reused direct buffer, whose raw address JCuda hands
 * to the driver ({@link PreparedLaunch}); seen again, it becomes a one-kernel CUDA graph, instantiated once and cached,
 * so that repeated calls (halo exchanges, chunk slots reused) cost one {@code cuGraphLaunch}. Given a flag event to
 * record, the cached graph's kernel signals the event itself when it finishes, so that pack plus completion costs that
 * one call too.
 */
final class CudaPacker implements BackendPacker
{
    private final CudaDevice device;
    private final TypeShape shape;
    private final DevicePointer code;
    private final PreparedLaunch firstSight = new PreparedLaunch();
    private final LaunchCache launches;

    CudaPacker(final CudaDevice device, final CompiledType type, final int cacheEntries)
    {
        this.device = device;
        this.shape = new TypeShape(type);
        this.launches = new LaunchCache(cacheEntries, this::release);
        final long[] nodes = shape.code();
        device.makeCurrent();
        code = new DevicePointer();
        final long codeBytes = Math.max(8L, nodes.length * 8L);
        Cuda.check(cuMemAlloc(code, codeBytes), "cuMemAlloc(" + codeBytes + " bytes of node code)");
        if (nodes.length > 0)
        {
            Cuda.check(cuMemcpyHtoD(code, Pointer.to(nodes), codeBytes), "cuMemcpyHtoD(node code)");
        }
    }

    /**
     * @return the datatype's shape, for a copy between it and another layout.
     */
    TypeShape shape()
    {
        return shape;
    }

    /**
     * @return the device address of the datatype's node code.
     */
    long codeAddress()
    {
        return code.address();
    }

    /**
     * @return the kernel of one move, for a batch's graph.
     */
    KernelPlan plan(
        final boolean pack, final long typed, final long count, final long packedOffset, final long lengthBytes,
        final long packed)
    {
        return KernelPlan.of(shape, pack, typed, count, packedOffset, lengthBytes, packed, code.address());
    }

    @Override
    public void pack(
        final BackendStream stream,
        final long srcAddress,
        final long count,
        final long packedOffset,
        final long lengthBytes,
        final long dstAddress)
    {
        launch((CudaStream)stream, true, srcAddress, count, packedOffset, lengthBytes, dstAddress);
    }

    @Override
    public void unpack(
        final BackendStream stream,
        final long srcAddress,
        final long count,
        final long packedOffset,
        final long lengthBytes,
        final long dstAddress)
    {
        launch((CudaStream)stream, false, dstAddress, count, packedOffset, lengthBytes, srcAddress);
    }

    @Override
    public void pack(
        final BackendStream stream,
        final long srcAddress,
        final long count,
        final long packedOffset,
        final long lengthBytes,
        final long dstAddress,
        final BackendEvent completion,
        final boolean hostMemory)
    {
        launchAndSignal((CudaStream)stream, true, srcAddress, count, packedOffset, lengthBytes, dstAddress, completion,
            hostMemory);
    }

    @Override
    public void unpack(
        final BackendStream stream,
        final long srcAddress,
        final long count,
        final long packedOffset,
        final long lengthBytes,
        final long dstAddress,
        final BackendEvent completion,
        final boolean hostMemory)
    {
        launchAndSignal((CudaStream)stream, false, dstAddress, count, packedOffset, lengthBytes, srcAddress,
            completion, hostMemory);
    }

    @Override
    public synchronized void close()
    {
        launches.clear();
        device.makeCurrent();
        Cuda.check(cuMemFree(code), "cuMemFree(node code)");
    }

    private void launchAndSignal(
        final CudaStream stream,
        final boolean pack,
        final long typed,
        final long count,
        final long packedOffset,
        final long lengthBytes,
        final long packed,
        final BackendEvent completion,
        final boolean hostMemory)
    {
        if (completion instanceof CudaFlagEvent flag)
        {
            if (!launch(stream, pack, typed, count, packedOffset, lengthBytes, packed, flag, hostMemory))
            {
                stream.record(flag);
            }
        }
        else
        {
            launch(stream, pack, typed, count, packedOffset, lengthBytes, packed, null, false);
            stream.record(completion);
        }
    }

    private void launch(
        final CudaStream stream,
        final boolean pack,
        final long typed,
        final long count,
        final long packedOffset,
        final long lengthBytes,
        final long packed)
    {
        launch(stream, pack, typed, count, packedOffset, lengthBytes, packed, null, false);
    }

    /**
     * @return true when the launch itself signals the completion event (a cached graph), false when the caller must
     * record it.
     */
    private synchronized boolean launch(
        final CudaStream stream,
        final boolean pack,
        final long typed,
        final long count,
        final long packedOffset,
        final long lengthBytes,
        final long packed,
        final CudaFlagEvent signal,
        final boolean hostMemory)
    {
        final CUstream cuStream = stream.stream();
        final long signalKey = signal == null ? 0 : signal.key();
        final int kind = pack ? LaunchCache.PACK : LaunchCache.UNPACK;
        final LaunchCache.Launch known =
            launches.find(kind, typed, count, packed, 0, packedOffset, lengthBytes, signalKey);
        if (known != null)
        {
            if (known.graph == null)
            {
                known.graph = device.instantiate(signal == null ? known.plan : KernelPlan.of(shape, pack, typed, count,
                    packedOffset, lengthBytes, packed, code.address(),
                    signal.signalledWordDeviceAddress() | (hostMemory ? 1 : 0), signal.scratchDeviceAddress()));
            }
            device.launch(known.graph, cuStream);
            if (signal != null)
            {
                signal.signalledBy(cuStream);
            }
            return signal != null;
        }
        final KernelPlan plan = KernelPlan.of(shape, pack, typed, count, packedOffset, lengthBytes, packed,
            code.address());
        device.launch(firstSight.prepare(plan, device.function(plan.kernel)), cuStream);
        final LaunchCache.Launch launch =
            new LaunchCache.Launch(kind, typed, count, packed, 0, packedOffset, lengthBytes, signalKey);
        launch.plan = plan;
        launches.add(launch);
        return false;
    }

    private void release(final LaunchCache.Launch launch)
    {
        if (launch.graph != null)
        {
            device.destroy(launch.graph);
            launch.graph = null;
        }
    }
}
