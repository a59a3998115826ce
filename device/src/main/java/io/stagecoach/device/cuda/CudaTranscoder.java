package io.stagecoach.device.cuda;

import io.stagecoach.device.BackendEvent;
import io.stagecoach.device.BackendStream;
import io.stagecoach.device.BackendTranscoder;
import jcuda.driver.CUstream;

/**
 * The CUDA copy kernel between two datatypes' layouts on one device, pack and unpack fused ({@link CopyPlan}), with
 * the node code their packers uploaded. Launched as a packer's kernels are: a call seen for the first time is a plain
 * launch, seen again it becomes a one-kernel CUDA graph, instantiated once and cached, whose kernel signals a flag
 * event itself.
 */
final class CudaTranscoder implements BackendTranscoder
{
    private final CudaDevice device;
    private final CudaPacker source;
    private final CudaPacker destination;
    private final PreparedLaunch firstSight = new PreparedLaunch();
    private final LaunchCache launches;

    CudaTranscoder(final CudaDevice device, final CudaPacker source, final CudaPacker destination,
        final int cacheEntries)
    {
        this.device = device;
        this.source = source;
        this.destination = destination;
        this.launches = new LaunchCache(cacheEntries, this::release);
    }

    @Override
    public void transcode(
        final BackendStream stream,
        final long srcAddress,
        final long srcCount,
        final long dstAddress,
        final long dstCount,
        final long packedOffset,
        final long lengthBytes)
    {
        launch((CudaStream)stream, srcAddress, srcCount, dstAddress, dstCount, packedOffset, lengthBytes, null, false);
    }

    @Override
    public void transcode(
        final BackendStream stream,
        final long srcAddress,
        final long srcCount,
        final long dstAddress,
        final long dstCount,
        final long packedOffset,
        final long lengthBytes,
        final BackendEvent completion,
        final boolean hostMemory)
    {
        final CudaStream cudaStream = (CudaStream)stream;
        final CudaFlagEvent flag = completion instanceof CudaFlagEvent f ? f : null;
        if (!launch(cudaStream, srcAddress, srcCount, dstAddress, dstCount, packedOffset, lengthBytes, flag,
            hostMemory))
        {
            cudaStream.record(completion);
        }
    }

    @Override
    public synchronized void close()
    {
        launches.clear();
    }

    /**
     * @return true when the launch itself signals the completion event (a cached graph), false when the caller must
     * record it.
     */
    private synchronized boolean launch(
        final CudaStream stream,
        final long srcAddress,
        final long srcCount,
        final long dstAddress,
        final long dstCount,
        final long packedOffset,
        final long lengthBytes,
        final CudaFlagEvent signal,
        final boolean hostMemory)
    {
        final CUstream cuStream = stream.stream();
        final long signalKey = signal == null ? 0 : signal.key();
        final LaunchCache.Launch known = launches.find(LaunchCache.COPY, srcAddress, srcCount, dstAddress, dstCount,
            packedOffset, lengthBytes, signalKey);
        if (known != null)
        {
            if (known.graph == null)
            {
                known.graph = device.instantiate(signal == null ? known.plan : plan(known,
                    signal.signalledWordDeviceAddress() | (hostMemory ? 1 : 0), signal.scratchDeviceAddress()));
            }
            device.launch(known.graph, cuStream);
            if (signal != null)
            {
                signal.signalledBy(cuStream);
            }
            return signal != null;
        }
        final LaunchCache.Launch launch = new LaunchCache.Launch(LaunchCache.COPY, srcAddress, srcCount, dstAddress,
            dstCount, packedOffset, lengthBytes, signalKey);
        launch.plan = plan(launch, 0, 0);
        device.launch(firstSight.prepare(launch.plan, device.function(launch.plan.kernel())), cuStream);
        launches.add(launch);
        return false;
    }

    private CopyPlan plan(final LaunchCache.Launch launch, final long signalAddress, final long counterAddress)
    {
        return CopyPlan.of(
            new CopyPlan.Side(source.shape(), launch.address, launch.count, source.codeAddress()),
            new CopyPlan.Side(destination.shape(), launch.otherAddress, launch.otherCount, destination.codeAddress()),
            launch.packedOffset, launch.lengthBytes, signalAddress, counterAddress);
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
