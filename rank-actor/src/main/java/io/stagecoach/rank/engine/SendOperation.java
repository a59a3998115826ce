package io.stagecoach.rank.engine;

import io.stagecoach.pipeline.PackedHostBuffer;
import io.stagecoach.pipeline.trace.TracedPath;
import io.stagecoach.protocol.datatype.CompiledType;
import io.stagecoach.rank.Request;
import io.stagecoach.rank.memory.MessageBuffer;
import io.stagecoach.rank.memory.RawMemory;

/**
 * The engine's side of a send request: what to send, to whom, and how far it got.
 */
public final class SendOperation implements EngineCommand
{
    /** A device send within the eager threshold, packed on the engine's thread when posted. */
    static final int STAGING = 0;
    static final int READY = 1;

    final Request request;
    final int destination;
    final int tag;
    final int contextId;
    final boolean synchronous;
    final MessageBuffer buffer;
    final long count;
    final CompiledType compiled;
    final long packedBytes;
    final SignatureEntry signature;
    final long contiguousAddress;

    int state;
    long transferId;
    long receiverTransferId;
    long sentBytes;
    boolean readableOffered;
    /** Where {@link #staged} lies in this rank's shared arena, for a same-node receiver to map; 0 when not there. */
    long sharedOffset;
    /** Packed into the shared arena after its RTS went out, while the receiver unpacks. */
    boolean packPending;
    PackedHostBuffer staged;
    /** A large device send whose chunks the stage pipeline packs; null otherwise. */
    ChunkedSend chunked;
    /** Packed bytes the receiver lets this send stream so far (its CTS windows). */
    long windowBytes;
    /** A chunked send that failed before its CTS came: the receiver is told so when the CTS comes. */
    boolean abandoned;
    /**
     * The send buffer's description in the shared arena, for a same-node receiver that copies straight out of the
     * buffer ({@link DirectDescription}); null when the message is packed or contiguous.
     */
    PackedHostBuffer description;
    /**
     * {@link #description} describes a device buffer that a same-node receiver gets over IPC ({@link IpcDescription});
     * if it cannot, its CTS starts the stage pipeline then.
     */
    boolean deviceIpc;
    /** The path it took, for the stage trace's transfer records; null until it took one. */
    TracedPath path;
    /** When it took its path, when tracing. */
    long pathStartNs;

    public SendOperation(
        final Request request,
        final int destination,
        final int tag,
        final int contextId,
        final boolean synchronous,
        final MessageBuffer buffer,
        final long count,
        final CompiledType compiled,
        final SignatureEntry signature)
    {
        this.request = request;
        this.destination = destination;
        this.tag = tag;
        this.contextId = contextId;
        this.synchronous = synchronous;
        this.buffer = buffer;
        this.count = count;
        this.compiled = compiled;
        this.packedBytes = signature.sizeBytes;
        this.signature = signature;
        this.contiguousAddress = buffer.isDevice() ? 0 :
            RawMemory.contiguousStart(compiled, buffer.baseAddress(), count);
        this.state = buffer.isDevice() ? STAGING : READY;
    }

    public void execute(final ProgressEngine engine)
    {
        engine.postSend(this);
    }

    public Request request()
    {
        return request;
    }

    /**
     * Writes packed bytes [packedOffset, packedOffset + lengthBytes) of the message to host memory.
     *
     * @param packedOffset first packed byte.
     * @param lengthBytes  bytes to write.
     * @param dstAddress   where they go.
     */
    void packInto(final long packedOffset, final int lengthBytes, final long dstAddress)
    {
        if (lengthBytes == 0)
        {
            return;
        }
        if (chunked != null)
        {
            final int chunk = chunked.plan.chunkOf(packedOffset);
            RawMemory.copy(chunked.address(chunk) + packedOffset - chunked.plan.offset(chunk), dstAddress,
                lengthBytes);
        }
        else if (staged != null)
        {
            RawMemory.copy(staged.address() + packedOffset, dstAddress, lengthBytes);
        }
        else if (contiguousAddress != 0)
        {
            RawMemory.copy(contiguousAddress + packedOffset, dstAddress, lengthBytes);
        }
        else
        {
            compiled.pack(buffer.baseAddress(), count, packedOffset, lengthBytes, dstAddress);
        }
    }

    /**
     * @return where the whole packed message lies contiguous in this process (the user buffer or its host staging
     * copy), or the send buffer's description, for a same-node receiver to read; 0 when there is neither.
     */
    long readableAddress()
    {
        return staged != null ? staged.address() : description != null ? description.address() : contiguousAddress;
    }

    void releaseStaged()
    {
        if (chunked != null && chunked.chunksSent < chunked.plan.chunks())
        {
            chunked.cancel();
        }
        if (staged != null)
        {
            staged.release();
        }
        if (description != null)
        {
            description.release();
            description = null;
        }
    }

    public String toString()
    {
        return request.toString();
    }
}
