package io.stagecoach.device.cuda;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import io.stagecoach.device.BackendEvent;
import io.stagecoach.device.BackendPacker;
import io.stagecoach.device.BackendStream;
import io.stagecoach.device.LaunchMode;
import io.stagecoach.protocol.datatype.CompiledType;
import jcuda.Pointer;
import jcuda.driver.CUstream;
import org.agrona.BufferUtil;

import static jcuda.driver.JCudaDriver.cuMemAlloc;
import static jcuda.driver.JCudaDriver.cuMemFree;
import static jcuda.driver.JCudaDriver.cuMemcpyHtoD;

/**
 * The CUDA pack and unpack kernels of one datatype on one device. The node code is uploaded once. A call seen for the
 * first time is a plain launch with arguments written into one reused direct buffer; seen again, it is started the
 * way the {@link LaunchMode} says, from state prepared once and cached (set-associative, by buffers, count, range and
 * event), so that repeated calls (halo exchanges, chunk slots reused) cost one driver call or none:
 * <ul>
 * <li>{@link LaunchMode#GRAPH}: a one-kernel CUDA graph, one {@code cuGraphLaunch};</li>
 * <li>{@link LaunchMode#DIRECT}: one {@code cuLaunchKernel} with the arguments prepared beside it;</li>
 * <li>{@link LaunchMode#RESIDENT}: with a flag event, a job for the stream's {@link ResidentKernel}, uploaded once
 * into this packer's table in device memory and handed over with one store to host memory; a graph otherwise.</li>
 * </ul>
 * Given a flag event to record, the cached launch's kernel signals the event itself when it finishes, so that pack
 * plus completion costs that one call too.
 */
final class CudaPacker implements BackendPacker
{
    private final CudaDevice device;
    private final TypeShape shape;
    private final DevicePointer code;
    private final LaunchMode mode;
    private final DirectLaunch firstSight = new DirectLaunch();
    private final LaunchCache launches;
    private final ResidentKernel[] jobKernels;
    private final long[] jobSequences;
    private final ByteBuffer job = BufferUtil.allocateDirectAligned(ResidentKernel.JOB_BYTES, 16)
        .order(ByteOrder.LITTLE_ENDIAN);
    private DevicePointer jobs;

    CudaPacker(final CudaDevice device, final CompiledType type, final int cacheEntries, final LaunchMode mode)
    {
        this.device = device;
        this.shape = new TypeShape(type);
        this.mode = mode;
        this.launches = new LaunchCache(cacheEntries, this::release);
        this.jobKernels = mode == LaunchMode.RESIDENT ? new ResidentKernel[launches.capacity()] : null;
        this.jobSequences = mode == LaunchMode.RESIDENT ? new long[launches.capacity()] : null;
        final long[] nodes = shape.code();
        code = new DevicePointer();
        final long codeBytes = Math.max(8L, nodes.length * 8L);
        device.residents().pause();
        try
        {
            device.makeCurrent();
            Cuda.check(cuMemAlloc(code, codeBytes), "cuMemAlloc(" + codeBytes + " bytes of node code)");
            if (nodes.length > 0)
            {
                Cuda.check(cuMemcpyHtoD(code, Pointer.to(nodes), codeBytes), "cuMemcpyHtoD(node code)");
            }
        }
        finally
        {
            device.residents().resume();
        }
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
        device.residents().pause();
        try
        {
            device.makeCurrent();
            Cuda.check(cuMemFree(code), "cuMemFree(node code)");
            if (jobs != null)
            {
                Cuda.check(cuMemFree(jobs), "cuMemFree(resident jobs)");
                jobs = null;
            }
        }
        finally
        {
            device.residents().resume();
        }
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
     * @return true when the launch itself signals the completion event (a cached launch), false when the caller must
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
        final long signalKey = signal == null ? 0 : signal.key();
        final LaunchCache.Launch known = launches.find(pack, typed, count, packedOffset, lengthBytes, packed, signalKey);
        if (known != null)
        {
            if (known.signalled == null)
            {
                known.signalled = signal == null ? known.plan : KernelPlan.of(shape, pack, typed, count,
                    packedOffset, lengthBytes, packed, code.address(),
                    signal.signalledWordDeviceAddress() | (hostMemory ? 1 : 0), signal.scratchDeviceAddress());
            }
            if (signal != null && mode == LaunchMode.RESIDENT && submitResident(stream, known, signal))
            {
                return true;
            }
            final CUstream cuStream = stream.enqueue();
            if (mode == LaunchMode.DIRECT)
            {
                if (known.direct == null)
                {
                    known.direct = new DirectLaunch().prepare(known.signalled, device.function(known.signalled.kernel));
                }
                device.launch(known.direct, cuStream);
            }
            else
            {
                if (known.graph == null)
                {
                    known.graph = device.instantiate(known.signalled);
                }
                device.launch(known.graph, cuStream);
            }
            if (signal != null)
            {
                signal.signalledBy(cuStream);
            }
            return signal != null;
        }
        final KernelPlan plan = KernelPlan.of(shape, pack, typed, count, packedOffset, lengthBytes, packed,
            code.address());
        device.launch(firstSight.prepare(plan, device.function(plan.kernel)), stream.enqueue());
        final LaunchCache.Launch launch =
            new LaunchCache.Launch(pack, typed, count, packedOffset, lengthBytes, packed, signalKey);
        launch.plan = plan;
        launches.add(launch);
        return false;
    }

    private boolean submitResident(final CudaStream stream, final LaunchCache.Launch known, final CudaFlagEvent signal)
    {
        final KernelPlan plan = known.signalled;
        final int kernel = plan.residentCode();
        if (kernel < 0)
        {
            return false;
        }
        final int slot = known.slot;
        final long jobAddress = jobsAddress() + (long)slot * ResidentKernel.JOB_BYTES;
        if (!known.uploaded)
        {
            final ResidentKernel previous = jobKernels[slot];
            if (previous != null)
            {
                previous.awaitCompleted(jobSequences[slot]);
                jobKernels[slot] = null;
            }
            plan.writeArguments(job);
            job.putInt(KernelPlan.ARGUMENT_BYTES, kernel);
            job.putInt(KernelPlan.ARGUMENT_BYTES + 4, (int)plan.blocks);
            job.putLong(KernelPlan.ARGUMENT_BYTES + 8, 0);
            device.upload(jobAddress, job, ResidentKernel.JOB_BYTES);
            known.uploaded = true;
        }
        final ResidentKernel resident = stream.trySubmitResident(jobAddress, plan.blocks, signal);
        if (resident == null)
        {
            return false;
        }
        jobKernels[slot] = resident;
        jobSequences[slot] = resident.submitted();
        return true;
    }

    private long jobsAddress()
    {
        if (jobs == null)
        {
            final long bytes = (long)launches.capacity() * ResidentKernel.JOB_BYTES;
            device.residents().pause();
            try
            {
                device.makeCurrent();
                final DevicePointer table = new DevicePointer();
                Cuda.check(cuMemAlloc(table, bytes), "cuMemAlloc(" + bytes + " bytes of resident jobs)");
                jobs = table;
            }
            finally
            {
                device.residents().resume();
            }
        }
        return jobs.address();
    }

    private void release(final LaunchCache.Launch launch)
    {
        if (launch.graph != null)
        {
            device.destroy(launch.graph);
            launch.graph = null;
        }
        launch.direct = null;
        launch.uploaded = false;
    }
}
