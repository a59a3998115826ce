package io.stagecoach.pipeline.transfer;

/**
 * What the pipeline tells the engine about one transfer: implemented by the engine, called on the transfer's actor
 * thread. An implementation only hands the fact to the engine's command queue: it never runs the engine's duty
 * cycle, never waits and, per chunk, allocates nothing.
 */
public interface TransferPort
{
    /**
     * Sender: a chunk lies packed in host memory, ready for the wire; its memory stays valid until the engine says
     * {@link TransferHandle#chunkSent(int)}.
     *
     * @param chunk       the chunk.
     * @param hostAddress its first packed byte.
     */
    void chunkPacked(int chunk, long hostAddress);

    /**
     * Receiver of a streamed transfer: host memory for a chunk's bytes is ready; the engine may let the sender send
     * them, writes them there, and says {@link TransferHandle#chunkArrived(int, long)} once all have arrived.
     *
     * @param chunk       the chunk.
     * @param hostAddress where its first packed byte goes.
     */
    void chunkSlot(int chunk, long hostAddress);

    /**
     * Receiver: a chunk reached the device buffer; its host memory is free again.
     *
     * @param chunk the chunk.
     */
    void chunkUnpacked(int chunk);

    /**
     * The transfer failed on the device side; nothing more comes from the pipeline for it.
     *
     * @param failure why, naming the chunk and the device work.
     */
    void transferFailed(Throwable failure);
}
