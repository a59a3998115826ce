package io.stagecoach.rank;

import io.stagecoach.pipeline.PackedHostBuffer;
import io.stagecoach.protocol.host.CrossMemory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The receiving side of a same-node read: takes a matched message straight out of the sender's memory, from one
 * contiguous range or from a table of its ranges, into the receive buffer, its device staging memory, or a pooled
 * buffer that is then unpacked.
 */
final class SameNodeReads
{
    private static final Logger LOG = LoggerFactory.getLogger(ProgressEngine.class);

    private final int rank;
    private final HostBufferPool hostBuffers;
    private final Completions completions;

    SameNodeReads(final int rank, final HostBufferPool hostBuffers, final Completions completions)
    {
        this.rank = rank;
        this.hostBuffers = hostBuffers;
        this.completions = completions;
    }

    /**
     * @param sourceRanges 0 when the message lies contiguous at {@code sourceAddress}, otherwise the entries of the
     *                     table of its ranges there.
     * @return as {@link #readContiguous}.
     */
    boolean read(
        final ReceiveOperation receive,
        final Peer peer,
        final long sourcePid,
        final long sourceAddress,
        final int sourceRanges,
        final long packedBytes)
    {
        return sourceRanges == 0 ? readContiguous(receive, peer, sourcePid, sourceAddress, packedBytes) :
            readRanges(receive, peer, sourcePid, sourceAddress, sourceRanges, packedBytes);
    }

    /**
     * Reads a same-node sender's packed bytes straight out of its memory into the receive buffer or its staging
     * memory: one copy, where the log buffer takes two (a receive type that scatters the data takes it from a pooled
     * buffer, one more copy). A refusal (another pid namespace, ptrace rules) turns reads
     * from that peer off, and the transfer goes on through CTS and DATA.
     *
     * @return true when the transfer is over: every byte arrived, or unpacking them failed the receive (the sender
     * is done either way); false when the read was refused.
     */
    boolean readContiguous(
        final ReceiveOperation receive, final Peer peer, final long pid, final long address, final long packedBytes)
    {
        final long target = receive.readTarget();
        final PackedHostBuffer scattered = target == 0 ? hostBuffers.acquire(packedBytes) : null;
        final long result;
        try
        {
            result = CrossMemory.read(pid, address, target != 0 ? target : scattered.address(), packedBytes);
            if (result == packedBytes && scattered != null)
            {
                receive.write(scattered.address(), 0, (int)packedBytes);
            }
        }
        catch (final RuntimeException ex)
        {
            completions.fail(receive.request, ex);
            return true;
        }
        finally
        {
            if (scattered != null)
            {
                scattered.release();
            }
        }
        if (result == packedBytes)
        {
            receive.receivedBytes = packedBytes;
            peer.reads++;
            return true;
        }
        return refused(peer, pid, result, packedBytes);
    }

    /**
     * Reads a same-node sender's scattered message from its ranges (a table of them in its memory) straight into the
     * receive buffer's ranges, or into the one range of a contiguous buffer or staging memory: one copy and no packing
     * on either side. A receive whose own layout does not suit takes it into a pooled buffer and unpacks.
     *
     * @return as {@link #readContiguous}.
     */
    boolean readRanges(
        final ReceiveOperation receive,
        final Peer peer,
        final long pid,
        final long tableAddress,
        final int ranges,
        final long packedBytes)
    {
        if (ranges > CrossMemory.MAX_VECTORS)
        {
            return refused(peer, pid, -CrossMemory.EFAULT, packedBytes);
        }
        final PackedHostBuffer remote = hostBuffers.acquire(RangeTable.MAX_TABLE_BYTES);
        final PackedHostBuffer local = hostBuffers.acquire(RangeTable.MAX_TABLE_BYTES);
        PackedHostBuffer scattered = null;
        long result;
        try
        {
            final long tableBytes = (long)ranges * CrossMemory.VECTOR_BYTES;
            result = CrossMemory.read(pid, tableAddress, remote.address(), tableBytes);
            if (result == tableBytes)
            {
                final long target = receive.readTarget();
                int localCount = target != 0 ? RangeTable.single(target, packedBytes, local.address()) :
                    RangeTable.fill(receive.compiled, receive.buffer.baseAddress(), receive.count, packedBytes,
                    local.address());
                if (localCount < 0)
                {
                    scattered = hostBuffers.acquire(packedBytes);
                    localCount = RangeTable.single(scattered.address(), packedBytes, local.address());
                }
                result = CrossMemory.readVectors(pid, remote.address(), ranges, local.address(), localCount);
                if (result == packedBytes && scattered != null)
                {
                    receive.write(scattered.address(), 0, (int)packedBytes);
                }
            }
        }
        catch (final RuntimeException ex)
        {
            completions.fail(receive.request, ex);
            return true;
        }
        finally
        {
            remote.release();
            local.release();
            if (scattered != null)
            {
                scattered.release();
            }
        }
        if (result == packedBytes)
        {
            receive.receivedBytes = packedBytes;
            peer.reads++;
            peer.rangeReads++;
            return true;
        }
        return refused(peer, pid, result, packedBytes);
    }

    private boolean refused(final Peer peer, final long pid, final long result, final long packedBytes)
    {
        peer.readable = false;
        LOG.info("rank {} cannot read rank {}'s memory (process {}): {}; its messages come through the log buffer",
            rank, peer.rank, pid, result < 0 ? CrossMemory.describe(result) : "read " + result + " of " +
            packedBytes + " bytes");
        return false;
    }
}
