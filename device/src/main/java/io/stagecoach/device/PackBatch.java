package io.stagecoach.device;

import java.util.List;
import java.util.function.Consumer;

/**
 * Packs and unpacks fixed once (the faces of one halo exchange, say) and launched together as often as needed: one
 * launch and one completion for all of them, where separate calls pay the GPU's round trip for each. Like an MPI
 * persistent request, its buffers and ranges do not change; the datatypes' packers and the buffers must outlive it.
 * Built by {@link DeviceRuntime#packBatch(int, PackJob...)}.
 */
public final class PackBatch implements AutoCloseable
{
    private final int device;
    private final int jobs;
    private final BackendBatch backend;
    private final Consumer<PackBatch> onClose;
    private boolean closed;

    PackBatch(final int device, final int jobs, final BackendBatch backend, final Consumer<PackBatch> onClose)
    {
        this.device = device;
        this.jobs = jobs;
        this.backend = backend;
        this.onClose = onClose;
    }

    /**
     * Enqueue every job on the stream, then record the event when all of them are done.
     *
     * @param stream     of the batch's device.
     * @param completion recorded after the batch; poll it or wait for it.
     * @throws IllegalArgumentException naming both devices when the stream or the event belongs to another device.
     * @throws IllegalStateException    when the batch was closed.
     */
    public void launch(final DeviceStream stream, final DeviceEvent completion)
    {
        if (closed)
        {
            throw new IllegalStateException("pack batch of " + jobs + " jobs on device " + device + " is closed");
        }
        if (stream.device() != device || completion.device() != device)
        {
            throw new IllegalArgumentException("stream of device " + stream.device() + " and event of device " +
                completion.device() + " given to a pack batch of device " + device);
        }
        backend.launch(stream.backend());
        stream.record(completion);
    }

    /**
     * @return the device the batch runs on.
     */
    public int device()
    {
        return device;
    }

    /**
     * @return the number of jobs.
     */
    public int jobs()
    {
        return jobs;
    }

    /**
     * Releases the batch's launch (its CUDA graph); the packers and buffers stay.
     */
    public void close()
    {
        if (!closed)
        {
            closed = true;
            backend.close();
            onClose.accept(this);
        }
    }

    static BackendBatch.Move[] moves(final int device, final List<PackJob> jobs)
    {
        if (jobs.isEmpty())
        {
            throw new IllegalArgumentException("a pack batch needs at least one job");
        }
        final BackendBatch.Move[] moves = new BackendBatch.Move[jobs.size()];
        for (int i = 0; i < moves.length; i++)
        {
            final PackJob job = jobs.get(i);
            if (job.packer().device() != device)
            {
                throw new IllegalArgumentException("job " + i + " has a packer of device " + job.packer().device() +
                    " in a pack batch of device " + device);
            }
            moves[i] = job.packer().move(job, "job " + i);
        }
        return moves;
    }
}
