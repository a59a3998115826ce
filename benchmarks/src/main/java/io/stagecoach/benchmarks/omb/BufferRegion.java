package io.stagecoach.benchmarks.omb;

import java.nio.ByteBuffer;
import java.time.Duration;

import io.stagecoach.protocol.datatype.Datatype;
import io.stagecoach.rank.Communicator;
import io.stagecoach.rank.DataBuffer;
import io.stagecoach.rank.Request;
import io.stagecoach.rank.Status;

/**
 * A send or receive buffer as the communicator takes it: a direct buffer for host memory, a raw address and
 * capacity for device memory (the communicator's device runtime tells it apart). Built once per size, outside the
 * timed loops.
 */
final class BufferRegion
{
    static final Duration TIMEOUT = Duration.ofSeconds(120);

    private final ByteBuffer host;
    private final long address;
    private final long capacityBytes;

    private BufferRegion(final ByteBuffer host, final long address, final long capacityBytes)
    {
        this.host = host;
        this.address = address;
        this.capacityBytes = capacityBytes;
    }

    static BufferRegion of(final ByteBuffer host)
    {
        return new BufferRegion(host, 0, host.capacity());
    }

    static BufferRegion of(final long address, final long capacityBytes)
    {
        return new BufferRegion(null, address, capacityBytes);
    }

    /**
     * @return the region as the messaging actor takes it.
     */
    DataBuffer data()
    {
        return host != null ? DataBuffer.of(host) : DataBuffer.of(address, capacityBytes);
    }

    Request isend(final Communicator comm, final long count, final Datatype type, final int peer, final int tag)
    {
        return host != null ? comm.isend(host, count, type, peer, tag) :
            comm.isend(address, capacityBytes, count, type, peer, tag);
    }

    Request irecv(final Communicator comm, final long count, final Datatype type, final int peer, final int tag)
    {
        return host != null ? comm.irecv(host, count, type, peer, tag) :
            comm.irecv(address, capacityBytes, count, type, peer, tag);
    }

    Status send(final Communicator comm, final long count, final Datatype type, final int peer, final int tag)
    {
        return isend(comm, count, type, peer, tag).await(TIMEOUT);
    }

    Status recv(final Communicator comm, final long count, final Datatype type, final int peer, final int tag)
    {
        return irecv(comm, count, type, peer, tag).await(TIMEOUT);
    }
}
