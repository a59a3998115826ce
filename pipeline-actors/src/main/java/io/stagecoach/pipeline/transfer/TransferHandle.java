package io.stagecoach.pipeline.transfer;

/**
 * What the engine tells the pipeline about one transfer it started: called on the engine's thread; each call hands
 * the fact to the transfer's actor and returns, allocating nothing.
 */
public interface TransferHandle
{
    /**
     * Sender: a packed chunk is on the wire (copied into the transport, or read by the receiver), and its host memory
     * may take another chunk.
     *
     * @param chunk the chunk.
     */
    void chunkSent(int chunk);

    /**
     * Sender: the receiver is posted (its first CTS came), so the transfer will run to its end. Until then a send
     * packs ahead only into slots that unmatched sends may take, leaving the rest of the pool to matched transfers;
     * from then on it takes any slot. A receive is matched from its start. Called at most once.
     */
    void matched();

    /**
     * Receiver: every byte of a chunk is in host memory (the slot the pipeline gave for it, or memory the sender's
     * process shares), ready to be unpacked into the device buffer.
     *
     * @param chunk       the chunk.
     * @param hostAddress its first packed byte.
     */
    void chunkArrived(int chunk, long hostAddress);

    /**
     * The request failed or was abandoned: the pipeline stops, and releases the transfer's memory once the device
     * work in flight is done. Idempotent.
     */
    void cancel();
}
