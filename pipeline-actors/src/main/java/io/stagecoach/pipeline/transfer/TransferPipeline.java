package io.stagecoach.pipeline.transfer;

/**
 * The device side of large transfers, chunk by chunk: the contract between the engine (matching, the wire,
 * requests) and the stage actors (pack, device-to-host, host-to-device, unpack). The engine starts a transfer with
 * a {@link TransferSpec}; the pipeline answers through the spec's {@link TransferPort}; the engine tells it what
 * the wire did through the returned {@link TransferHandle}. Called on the engine's thread; never blocks.
 */
public interface TransferPipeline extends AutoCloseable
{
    /**
     * Chunks of a receive out of the sender's memory (the arena wire) that may have arrived and not been unpacked:
     * a sender names at most this many chunks beyond those the receiver has taken out.
     */
    int ARENA_RING = 64;

    /**
     * Starts packing a device send buffer, chunk by chunk, into host memory, up to {@link TransferSpec#slotsUsed()}
     * chunks ahead of the wire; each packed chunk is reported with {@link TransferPort#chunkPacked(int, long)}.
     *
     * @param spec the send.
     * @return the handle through which the engine reports chunks sent.
     */
    TransferHandle startSend(TransferSpec spec);

    /**
     * Starts receiving into a device buffer.
     *
     * @param spec      the receive.
     * @param withSlots true when the chunks arrive as bytes that need host memory of this rank (the pipeline then
     *                  offers it with {@link TransferPort#chunkSlot(int, long)}); false when they arrive in memory
     *                  the sender shares.
     * @return the handle through which the engine reports chunks arrived.
     */
    TransferHandle startReceive(TransferSpec spec, boolean withSlots);

    /**
     * Gives the pipeline host memory that same-node peers map (a region of the rank's shared arena), for the slots of
     * sends whose spec asks for {@link TransferSpec#sharedSlots()}; registered with the device on first use.
     *
     * @param address     of the region, page aligned.
     * @param lengthBytes of the region: room for the pool's slots.
     */
    void sharedSlots(long address, long lengthBytes);

    /**
     * @return bytes of the largest chunk the pipeline's host memory holds.
     */
    long maxChunkBytes();

    /**
     * @return transfers started so far, in either direction.
     */
    long transfersStarted();

    /**
     * Releases the host memory, streams and events once the device work queued on the pipeline's streams is done.
     * The transfers' actors belong to the caller's actor system, which stops them; close it after that.
     */
    void close();
}
