package io.stagecoach.device.cuda;

import java.nio.ByteBuffer;

/**
 * What {@link CudaDevice} needs to launch a kernel or put it in a graph: its name, its grid (blocks of
 * {@link KernelPlan#THREADS} threads) and its one argument struct.
 */
interface LaunchPlan
{
    /**
     * @return the kernel's name in the module.
     */
    String kernel();

    /**
     * @return blocks of the grid.
     */
    long blocks();

    /**
     * @return bytes of the argument struct, at most {@link PreparedLaunch#MAX_ARGUMENT_BYTES}.
     */
    int argumentBytes();

    /**
     * @param buffer receives the argument struct from index 0.
     */
    void writeArguments(ByteBuffer buffer);
}
