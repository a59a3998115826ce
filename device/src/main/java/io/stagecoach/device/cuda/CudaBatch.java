package io.stagecoach.device.cuda;

import io.stagecoach.device.BackendBatch;
import io.stagecoach.device.BackendStream;
import jcuda.driver.CUgraphExec;

/**
 * A batch on a GPU: one CUDA graph with a kernel node per move and no order between them, instantiated once, so that
 * a launch of the whole batch is one {@code cuGraphLaunch} and the GPU runs the moves side by side.
 */
final class CudaBatch implements BackendBatch
{
    private final CudaDevice device;
    private CUgraphExec graph;

    CudaBatch(final CudaDevice device, final Move[] moves)
    {
        this.device = device;
        final KernelPlan[] plans = new KernelPlan[moves.length];
        for (int i = 0; i < moves.length; i++)
        {
            final Move move = moves[i];
            plans[i] = ((CudaPacker)move.packer()).plan(move.pack(), move.typed(), move.count(), move.packedOffset(),
                move.lengthBytes(), move.packed());
        }
        this.graph = device.instantiate(plans);
    }

    @Override
    public void launch(final BackendStream stream)
    {
        device.launch(graph, ((CudaStream)stream).stream());
    }

    @Override
    public void close()
    {
        if (graph != null)
        {
            device.destroy(graph);
            graph = null;
        }
    }
}
