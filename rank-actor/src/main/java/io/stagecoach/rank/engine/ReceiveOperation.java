package io.stagecoach.rank.engine;

import io.stagecoach.pipeline.trace.TracedPath;
import io.stagecoach.pipeline.PackedHostBuffer;
import io.stagecoach.protocol.datatype.CompiledType;
import io.stagecoach.rank.Communicator;
import io.stagecoach.rank.Request;
import io.stagecoach.rank.memory.MessageBuffer;
import io.stagecoach.rank.memory.RawMemory;

/**
 * The engine's side of a receive request: the pattern it matches, where the data goes, and, once matched, the
 * transfer that fills it. Linked into the posted-receive queue while unmatched.
 */
public final class ReceiveOperation implements EngineCommand
{
    final Request request;
    final int source;
    final int tag;
    final int contextId;
    final MessageBuffer buffer;
    final long count;
    final CompiledType compiled;
    final long typeSizeBytes;
    final long capacityBytes;
    final SignatureEntry signature;
    final long contiguousAddress;

    ReceiveOperation previous;
    ReceiveOperation next;
    long postOrder;

    int matchedSource = -1;
    int matchedTag;
    long packedBytes;
    long receivedBytes;
    long transferId;
    PackedHostBuffer staging;
    /** A large device receive whose chunks the stage pipeline unpacks; null otherwise. */
    ChunkedReceive chunked;
    long senderTransferId;
    /**
     * A device receive whose chunks are taken out of the sender's arena: where that arena starts in this process, 0
     * otherwise; and the sender's slot region in it. Its pipeline starts with the first CHUNK, which says the chunk
     * size.
     */
    long arenaBase;
    long regionOffset;
    long regionLength;
    /**
     * The message is being got out of the sender's device buffer over IPC: the device writes into the receive buffer
     * until the get ends, so a lost sender fails the receive then ({@code Delivery.getDone}), not before.
     */
    boolean ipcGet;
    /** The path it took, for the stage trace's transfer records; null until it took one. */
    TracedPath path;
    /** When it took its path, when tracing. */
    long pathStartNs;

    public ReceiveOperation(
        final Request request,
        final int source,
        final int tag,
        final int contextId,
        final MessageBuffer buffer,
        final long count,
        final CompiledType compiled,
        final SignatureEntry signature)
    {
        this.request = request;
        this.source = source;
        this.tag = tag;
        this.contextId = contextId;
        this.buffer = buffer;
        this.count = count;
        this.compiled = compiled;
        this.typeSizeBytes = compiled.size();
        this.capacityBytes = signature.sizeBytes;
        this.signature = signature;
        this.contiguousAddress = buffer.isDevice() ? 0 :
            RawMemory.contiguousStart(compiled, buffer.baseAddress(), count);
    }

    public void execute(final ProgressEngine engine)
    {
        engine.postReceive(this);
    }

    public Request request()
    {
        return request;
    }

    boolean matches(final int source, final int tag, final int contextId)
    {
        return (this.source == Communicator.ANY_SOURCE || this.source == source) &&
            (this.tag == Communicator.ANY_TAG || this.tag == tag) && this.contextId == contextId;
    }

    /**
     * Writes arrived packed bytes where they belong: unpacked into a host buffer, or copied into the host staging
     * memory of a device buffer.
     *
     * @param srcAddress   off-heap address of the bytes.
     * @param packedOffset their offset in the message's packed stream.
     * @param lengthBytes  how many.
     */
    void write(final long srcAddress, final long packedOffset, final int lengthBytes)
    {
        if (lengthBytes == 0)
        {
            return;
        }
        if (chunked != null)
        {
            if (!chunked.write(srcAddress, packedOffset, lengthBytes))
            {
                throw new IllegalStateException("packed bytes [" + packedOffset + ", " + (packedOffset + lengthBytes) +
                    ") lie outside the window of " + chunked.windowBytes() + " bytes: " + request);
            }
        }
        else if (staging != null)
        {
            RawMemory.copy(srcAddress, staging.address() + packedOffset, lengthBytes);
        }
        else if (contiguousAddress != 0)
        {
            RawMemory.copy(srcAddress, contiguousAddress + packedOffset, lengthBytes);
        }
        else
        {
            compiled.unpack(srcAddress, count, packedOffset, lengthBytes, buffer.baseAddress());
        }
    }

    /**
     * @return where the whole packed message can be written contiguous in this process (the user buffer or the host
     * staging memory of a device buffer); 0 when the receive type scatters it.
     */
    long readTarget()
    {
        return staging != null ? staging.address() : contiguousAddress;
    }

    void releaseStaging()
    {
        if (chunked != null && !chunked.isUnpacked())
        {
            chunked.cancel();
        }
        if (staging != null)
        {
            staging.release();
        }
    }

    public String toString()
    {
        return request.toString();
    }
}
