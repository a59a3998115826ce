package io.stagecoach.device.cuda;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import jcuda.driver.CUfunction;
import org.agrona.BufferUtil;

/**
 * A kernel launch ready for {@code cuLaunchKernel}: the argument struct and the one-entry array of argument pointers
 * the driver reads live in one direct buffer, and the parameter pointer handed to JCuda is the raw address of that
 * array, so that a launch marshals no Java objects.
 */
final class PreparedLaunch
{
    /** Bytes of the largest argument struct: {@link CopyPlan#ARGUMENT_BYTES} rounded up. */
    static final int MAX_ARGUMENT_BYTES = 256;
    private static final int POINTER_OFFSET = MAX_ARGUMENT_BYTES;

    private final ByteBuffer buffer =
        BufferUtil.allocateDirectAligned(MAX_ARGUMENT_BYTES + 16, 16).order(ByteOrder.LITTLE_ENDIAN);
    private final HostPointer parameters;
    CUfunction function;
    int blocks;
    String description;

    PreparedLaunch()
    {
        final long address = BufferUtil.address(buffer);
        buffer.putLong(POINTER_OFFSET, address);
        parameters = new HostPointer(address + POINTER_OFFSET);
    }

    /**
     * @param plan     to launch.
     * @param function the plan's kernel.
     * @return this.
     */
    PreparedLaunch prepare(final LaunchPlan plan, final CUfunction function)
    {
        plan.writeArguments(buffer);
        this.function = function;
        this.blocks = (int)plan.blocks();
        this.description = plan.toString();
        return this;
    }

    HostPointer parameters()
    {
        return parameters;
    }
}
