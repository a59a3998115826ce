package io.stagecoach.benchmarks.omb;

import java.nio.ByteBuffer;

import io.stagecoach.device.DeviceContext;
import io.stagecoach.device.DeviceRuntime;
import io.stagecoach.protocol.datatype.Datatype;
import io.stagecoach.rank.Communicator;
import io.stagecoach.rank.Request;
import io.stagecoach.rank.Stagecoach;
import io.stagecoach.rank.StagecoachContext;
import org.agrona.CloseHelper;

/**
 * One of the two ranks of a benchmark: the world communicator, the device runtime when this rank's buffers are
 * device memory, and a barrier built from a zero-byte exchange (the API has no collectives).
 */
final class BenchmarkRank implements AutoCloseable
{
    private static final int BARRIER_TAG = 32_000;

    private final Communicator comm;
    private final DeviceRuntime device;
    private final MemoryLocation location;
    private final ByteBuffer empty = ByteBuffer.allocateDirect(0);

    private BenchmarkRank(final Communicator comm, final DeviceRuntime device, final MemoryLocation location)
    {
        this.comm = comm;
        this.device = device;
        this.location = location;
    }

    /**
     * Joins the job; needs exactly two ranks. Rank r's buffers live where the r-th location of the options says, device
     * memory on the rank's default device: the local rank its launcher gives modulo the devices it sees, unless
     * {@code STAGECOACH_DEVICE_ORDINAL} names one.
     */
    static BenchmarkRank start(final String program, final BenchmarkOptions options)
    {
        final StagecoachContext context = new StagecoachContext();
        final DeviceRuntime device = options.anyDevice() ? DeviceRuntime.open(
            new DeviceContext().localRank(context.launchEnvironment().localRank())) : null;
        Communicator comm = null;
        try
        {
            comm = Stagecoach.init(context.deviceRuntime(device));
            if (comm.size() != 2)
            {
                throw new IllegalArgumentException(program + " needs exactly 2 ranks, the job has " + comm.size());
            }
            return new BenchmarkRank(comm, device, options.location(comm.rank()));
        }
        catch (final RuntimeException ex)
        {
            CloseHelper.quietCloseAll(comm, device);
            throw ex;
        }
    }

    Communicator comm()
    {
        return comm;
    }

    int rank()
    {
        return comm.rank();
    }

    int peer()
    {
        return 1 - comm.rank();
    }

    boolean isRoot()
    {
        return comm.rank() == 0;
    }

    MemoryLocation location()
    {
        return location;
    }

    /**
     * @return a description of the device layer in use, or null when neither rank uses device memory.
     */
    String deviceDescription()
    {
        return device == null ? null : device.kind() + ", rank " + comm.rank() + " on device " +
            device.defaultDevice() + " of " + device.deviceCount() + " = " + device.deviceName();
    }

    RankBuffer allocate(final long lengthBytes)
    {
        return RankBuffer.allocate(location, lengthBytes, device, comm);
    }

    void barrier()
    {
        final Request arrived = comm.irecv(empty, 0, Datatype.BYTE, peer(), BARRIER_TAG);
        comm.isend(empty, 0, Datatype.BYTE, peer(), BARRIER_TAG).await(BufferRegion.TIMEOUT);
        arrived.await(BufferRegion.TIMEOUT);
    }

    public void close()
    {
        CloseHelper.quietCloseAll(comm, device);
    }
}
