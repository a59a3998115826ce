package io.stagecoach.examples.lbm;

import java.util.List;

import io.stagecoach.device.Allocation;
import io.stagecoach.device.DeviceStream;
import io.stagecoach.protocol.datatype.Datatype;
import io.stagecoach.rank.Communicator;
import io.stagecoach.rank.Request;
import org.agrona.CloseHelper;

/**
 * The phase of the variants that pack by hand, the paper's "before" code: a pack kernel per message into a contiguous
 * device buffer, the packed buffers sent as plain floats, an unpack kernel per message out of the received buffer.
 * <ul>
 * <li>Contig: the device buffers themselves are sent and received (the runtime moves device memory).</li>
 * <li>Default: the packed buffers are also copied to pinned host buffers and back (D2H after the packs, one
 * synchronisation, host sends and receives, H2D before the unpacks): the messages are host memory.</li>
 * </ul>
 */
final class StagedPhase implements PhaseExchange
{
    private final String name;
    private final Communicator comm;
    private final DeviceStream stream;
    private final List<Transfer> transfers;
    private final boolean throughHost;
    private final Allocation deviceStaging;
    private final Allocation hostStaging;
    private final long[] offsets;
    private final LbmKernels.Launch[][] packs = new LbmKernels.Launch[2][];
    private final LbmKernels.Launch[][] unpacks = new LbmKernels.Launch[2][];
    private final Request[] requests;

    StagedPhase(final String name, final HaloContext context, final List<Transfer> transfers, final boolean throughHost)
    {
        this.name = name;
        this.comm = context.comm();
        this.stream = context.stream();
        this.transfers = transfers;
        this.throughHost = throughHost;
        this.requests = new Request[2 * transfers.size()];
        this.offsets = new long[2 * transfers.size() + 1];
        for (int t = 0; t < transfers.size(); t++)
        {
            offsets[2 * t + 1] = offsets[2 * t] + transfers.get(t).send().elements() * Float.BYTES;
            offsets[2 * t + 2] = offsets[2 * t + 1] + transfers.get(t).receive().elements() * Float.BYTES;
        }
        deviceStaging = context.device().allocate(offsets[offsets.length - 1]);
        hostStaging = throughHost ? context.device().allocatePinned(offsets[offsets.length - 1]) : null;
        for (int parity = 0; parity < 2; parity++)
        {
            prepare(context, parity);
        }
    }

    @Override
    public void start(final int parity)
    {
        final int count = transfers.size();
        for (int t = 0; t < count; t++)
        {
            packs[parity][t].on(stream);
        }
        if (throughHost)
        {
            for (int t = 0; t < count; t++)
            {
                stream.copy(hostSend(t), deviceSend(t), bytes(2 * t));
            }
        }
        stream.synchronize();
        for (int t = 0; t < count; t++)
        {
            final Transfer transfer = transfers.get(t);
            final long address = throughHost ? hostReceive(t) : deviceReceive(t);
            requests[t] = comm.irecv(address, bytes(2 * t + 1), transfer.receive().elements(), Datatype.FLOAT,
                transfer.from(), transfer.tag());
        }
        for (int t = 0; t < count; t++)
        {
            final Transfer transfer = transfers.get(t);
            final long address = throughHost ? hostSend(t) : deviceSend(t);
            requests[count + t] = comm.isend(address, bytes(2 * t), transfer.send().elements(), Datatype.FLOAT,
                transfer.to(), transfer.tag());
        }
    }

    @Override
    public void finish(final int parity)
    {
        HaloContext.awaitAll(requests, name);
        final int count = transfers.size();
        if (throughHost)
        {
            for (int t = 0; t < count; t++)
            {
                stream.copy(deviceReceive(t), hostReceive(t), bytes(2 * t + 1));
            }
        }
        for (int t = 0; t < count; t++)
        {
            unpacks[parity][t].on(stream);
        }
    }

    @Override
    public void close()
    {
        CloseHelper.quietCloseAll(deviceStaging, hostStaging);
    }

    private void prepare(final HaloContext context, final int parity)
    {
        final Fields fields = context.fields();
        final int count = transfers.size();
        packs[parity] = new LbmKernels.Launch[count];
        unpacks[parity] = new LbmKernels.Launch[count];
        for (int t = 0; t < count; t++)
        {
            final Side send = transfers.get(t).send();
            final Side receive = transfers.get(t).receive();
            packs[parity][t] = context.kernels().pack(send.field().address(fields, parity), deviceSend(t),
                fields.block(), send.box(), send.components());
            unpacks[parity][t] = context.kernels().unpack(receive.field().address(fields, parity), deviceReceive(t),
                fields.block(), receive.box(), receive.components());
        }
    }

    private long bytes(final int slot)
    {
        return offsets[slot + 1] - offsets[slot];
    }

    private long deviceSend(final int t)
    {
        return deviceStaging.address() + offsets[2 * t];
    }

    private long deviceReceive(final int t)
    {
        return deviceStaging.address() + offsets[2 * t + 1];
    }

    private long hostSend(final int t)
    {
        return hostStaging.address() + offsets[2 * t];
    }

    private long hostReceive(final int t)
    {
        return hostStaging.address() + offsets[2 * t + 1];
    }
}
