package io.stagecoach.pipeline.transfer;

import java.util.Objects;

import io.stagecoach.protocol.datatype.CompiledType;

/**
 * One device side of a transfer, as the engine starts it: the typed buffer in device memory, how its packed stream
 * is cut into chunks, how many chunks may be in host memory at once, and the engine's port for the answers.
 *
 * @param transferId    the engine's id of the transfer, for names and traces.
 * @param peer          the rank at the other end.
 * @param bufferAddress displacement 0 of the datatype in device memory.
 * @param device        ordinal of the device that holds the buffer.
 * @param count         instances of the datatype.
 * @param type          the compiled datatype.
 * @param plan          the chunks of the packed stream.
 * @param slots         chunks that may be in host memory at once, at least 1: the transfer's window.
 * @param sharedSlots   a send whose chunks go into slots of memory the receiver's process maps (the rank's shared
 *                      arena), not of this process's pinned pool.
 * @param port          where the pipeline's answers go.
 */
public record TransferSpec(
    long transferId,
    int peer,
    long bufferAddress,
    int device,
    long count,
    CompiledType type,
    ChunkPlan plan,
    int slots,
    boolean sharedSlots,
    TransferPort port)
{
    /**
     * Checks the spec.
     */
    public TransferSpec
    {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(plan, "plan");
        Objects.requireNonNull(port, "port");
        if (slots < 1)
        {
            throw new IllegalArgumentException("a transfer needs at least 1 slot, not " + slots);
        }
    }

    /**
     * @return the slots the transfer uses: no more than it has chunks, at least 1.
     */
    public int slotsUsed()
    {
        return Math.max(1, Math.min(slots, plan.chunks()));
    }
}
