package io.stagecoach.device.emulated;

import io.stagecoach.device.BackendBatch;
import io.stagecoach.device.BackendStream;

/**
 * A batch on the emulated device: its moves enqueued one after the other on the stream's worker.
 */
final class EmulatedBatch implements BackendBatch
{
    private final Move[] moves;

    EmulatedBatch(final Move[] moves)
    {
        this.moves = moves;
    }

    @Override
    public void launch(final BackendStream stream)
    {
        for (final Move move : moves)
        {
            if (move.pack())
            {
                move.packer().pack(stream, move.typed(), move.count(), move.packedOffset(), move.lengthBytes(),
                    move.packed());
            }
            else
            {
                move.packer().unpack(stream, move.packed(), move.count(), move.packedOffset(), move.lengthBytes(),
                    move.typed());
            }
        }
    }

    @Override
    public void close()
    {
    }
}
