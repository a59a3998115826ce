package io.stagecoach.node.agent;

import java.util.List;

import io.stagecoach.device.DeviceContext;
import io.stagecoach.device.DeviceKind;
import io.stagecoach.device.DeviceRuntime;

/**
 * How many GPUs a node has: a count from the configuration, or what the device layer sees ({@code auto}): the CUDA
 * devices visible to the agent where the CUDA back end can run, none otherwise.
 */
public final class GpuCount
{
    /** The largest count a configuration may give. */
    public static final int MAX = 64;

    private GpuCount()
    {
    }

    /**
     * @return the CUDA devices this process sees, 0 where CUDA cannot run here.
     */
    public static int detect()
    {
        final List<DeviceKind> kinds = DeviceRuntime.availableKinds();
        if (!kinds.contains(DeviceKind.CUDA))
        {
            return 0;
        }
        try (DeviceRuntime runtime = DeviceRuntime.open(new DeviceContext().kind(DeviceKind.CUDA)))
        {
            return runtime.deviceCount();
        }
    }
}
