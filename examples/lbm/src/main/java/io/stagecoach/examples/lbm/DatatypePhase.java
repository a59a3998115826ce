package io.stagecoach.examples.lbm;

import java.util.List;

import io.stagecoach.rank.Communicator;
import io.stagecoach.rank.Request;

/**
 * The Datatype variant's phase, the paper's "after" code: every message is posted on the fields in device memory
 * with its derived datatype on both sides ({@link FaceTypes}); no pack code, no staging buffers, no copies here.
 */
final class DatatypePhase implements PhaseExchange
{
    private final String name;
    private final Communicator comm;
    private final Fields fields;
    private final List<Transfer> transfers;
    private final FaceTypes.Placed[] sends;
    private final FaceTypes.Placed[] receives;
    private final Request[] requests;

    DatatypePhase(final String name, final HaloContext context, final List<Transfer> transfers)
    {
        this.name = name;
        this.comm = context.comm();
        this.fields = context.fields();
        this.transfers = transfers;
        this.sends = new FaceTypes.Placed[transfers.size()];
        this.receives = new FaceTypes.Placed[transfers.size()];
        this.requests = new Request[2 * transfers.size()];
        final Block block = fields.block();
        for (int t = 0; t < transfers.size(); t++)
        {
            final Transfer transfer = transfers.get(t);
            sends[t] = FaceTypes.of(block, transfer.dimension(), transfer.send());
            receives[t] = FaceTypes.of(block, transfer.dimension(), transfer.receive());
        }
    }

    @Override
    public void start(final int parity)
    {
        final int count = transfers.size();
        for (int t = 0; t < count; t++)
        {
            final Transfer transfer = transfers.get(t);
            final long address = transfer.receive().field().address(fields, parity) + receives[t].offsetBytes();
            requests[t] = comm.irecv(address, fields.endOf(address) - address, 1, receives[t].type(),
                transfer.from(), transfer.tag());
        }
        for (int t = 0; t < count; t++)
        {
            final Transfer transfer = transfers.get(t);
            final long address = transfer.send().field().address(fields, parity) + sends[t].offsetBytes();
            requests[count + t] = comm.isend(address, fields.endOf(address) - address, 1, sends[t].type(),
                transfer.to(), transfer.tag());
        }
    }

    @Override
    public void finish(final int parity)
    {
        HaloContext.awaitAll(requests, name);
    }

    @Override
    public void close()
    {
        for (int t = 0; t < transfers.size(); t++)
        {
            sends[t].type().free();
            receives[t].type().free();
        }
    }
}
