package io.stagecoach.rank.engine;

import java.nio.ByteBuffer;

import io.stagecoach.pipeline.PackedHostBuffer;
import io.stagecoach.pipeline.trace.TracedPath;
import io.stagecoach.pipeline.transport.cudaipc.IpcGets;
import io.stagecoach.protocol.datatype.CompiledType;
import io.stagecoach.protocol.datatype.Datatype;
import io.stagecoach.protocol.ErrorClass;
import io.stagecoach.protocol.host.CrossMemory;
import io.stagecoach.protocol.wire.ClearToSendFlyweight;
import io.stagecoach.protocol.wire.EnvelopeFlyweight;
import io.stagecoach.protocol.wire.ErrorFlyweight;
import io.stagecoach.protocol.wire.MessageType;
import io.stagecoach.rank.Communicator;
import io.stagecoach.rank.PeerLostException;
import io.stagecoach.rank.Request;
import io.stagecoach.rank.Status;
import io.stagecoach.rank.memory.HostBufferPool;
import io.stagecoach.rank.memory.PeerArenas;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import static io.stagecoach.rank.engine.EngineErrors.checkMatch;
import static io.stagecoach.rank.engine.EngineErrors.goneError;
import static io.stagecoach.rank.engine.EngineErrors.rejectionCode;

/**
 * Matching and delivery on the receiving side: a posted receive takes the earliest unexpected message that matches,
 * or waits in the posted queue; a matched message is checked against the receive (capacity, type signature), then
 * an eager payload is unpacked into the receive buffer and a rendezvous transfer is read straight out of a same-node
 * sender's memory, or cleared to send. A small device receive lands in host staging memory and is unpacked into
 * the device on this thread; a large one runs through the stage pipeline, which offers host memory for its chunks
 * (each offer widens the sender's window with a CTS) and unpacks each chunk as it arrives. A large device message
 * that a same-node sender offers over IPC is got straight out of its device buffer on this rank's device
 * ({@link IpcGets}), and the ACK goes back once the device is done.
 */
final class Delivery
{
    private static final Logger LOG = LoggerFactory.getLogger(ProgressEngine.class);

    /** The layout of packed bytes: one byte per instance, as many instances as bytes. */
    private static final CompiledType PACKED = Datatype.BYTE.compiled();

    /** Bytes packed out of a sender's buffer and unpacked at a time, where the receive type scatters them. */
    static final long DIRECT_CHUNK_BYTES = 16 * 1024;

    private final int rank;
    private final EngineSettings settings;
    private final DevicePath device;
    private final CommandSink engine;
    private final MatchQueues queues;
    private final Transfers transfers;
    private final Completions completions;
    private final PeerLiveness liveness;
    private final Outbound outbound;
    private final HostBufferPool hostBuffers;
    private final UnsafeBuffer scratch;
    private final IpcGets.Handler getDone = this::getDone;
    private PeerArenas peerArenas;

    Delivery(
        final int rank,
        final EngineSettings settings,
        final DevicePath device,
        final CommandSink engine,
        final MatchQueues queues,
        final Transfers transfers,
        final Completions completions,
        final PeerLiveness liveness,
        final Outbound outbound,
        final HostBufferPool hostBuffers)
    {
        this.rank = rank;
        this.settings = settings;
        this.device = device;
        this.engine = engine;
        this.queues = queues;
        this.transfers = transfers;
        this.completions = completions;
        this.liveness = liveness;
        this.outbound = outbound;
        this.hostBuffers = hostBuffers;
        this.scratch = new UnsafeBuffer(ByteBuffer.allocateDirect(
            EnvelopeFlyweight.HEADER_LENGTH + settings.eagerThresholdBytes()));
    }

    /**
     * Posts a receive: matched with the earliest matching unexpected message, failed when its source is gone (or
     * every other rank, for ANY_SOURCE), posted otherwise.
     *
     * @param receive a new receive of an open engine.
     */
    void post(final ReceiveOperation receive)
    {
        final UnexpectedMessage message = queues.findUnexpected(
            receive.source, receive.tag, receive.contextId, true);
        if (message != null)
        {
            matchUnexpected(receive, message);
            return;
        }
        if (receive.source != Communicator.ANY_SOURCE && liveness.peer(receive.source).isGone())
        {
            completions.fail(receive.request, goneError(liveness.peer(receive.source), receive.request));
            return;
        }
        if (receive.source == Communicator.ANY_SOURCE && liveness.noLivePeer())
        {
            completions.fail(receive.request, new PeerLostException(-1, ErrorClass.PROC_FAILED_PENDING,
                "every other rank is gone: " + receive.request));
            return;
        }
        queues.post(receive);
    }

    /**
     * MPI_Iprobe: the envelope of the earliest unexpected message that matches.
     *
     * @return its status (count in bytes), or null when none matches.
     * @throws PeerLostException when none matches and the source is gone (or every other rank, for ANY_SOURCE).
     */
    Status probe(final int source, final int tag, final int contextId)
    {
        final UnexpectedMessage message = queues.findUnexpected(source, tag, contextId, false);
        final boolean attached = liveness.isAttached();
        if (message == null && source != Communicator.ANY_SOURCE && attached && liveness.peer(source).isGone())
        {
            throw new PeerLostException(source, "rank " + source + " " + liveness.peer(source).goneReason +
                ": probe(source=" + source + ", tag=" + Request.tagName(tag) + ")");
        }
        if (message == null && source == Communicator.ANY_SOURCE && attached && liveness.noLivePeer())
        {
            throw new PeerLostException(-1, ErrorClass.PROC_FAILED_PENDING,
                "every other rank is gone: probe(source=ANY_SOURCE, tag=" + Request.tagName(tag) + ")");
        }
        return message == null ? null :
            new Status(message.source, message.tag, message.packedBytes, message.packedBytes, null);
    }

    /**
     * Delivers an EAGER message to the receive it matched: checks it, acknowledges a synchronous send, and unpacks
     * the payload.
     *
     * @param payloadAddress off-heap address of the packed payload.
     */
    void deliverEager(
        final ReceiveOperation receive,
        final Peer peer,
        final int tag,
        final boolean synchronous,
        final long senderTransferId,
        final long packedBytes,
        final long signatureHash,
        final long signatureLength,
        final long signatureSizeBytes,
        final long payloadAddress)
    {
        final RuntimeException mismatch =
            checkMatch(receive, peer.rank, tag, packedBytes, signatureHash, signatureLength, signatureSizeBytes);
        matched(receive, peer.rank, tag, packedBytes);
        TransferTrace.took(receive, TracedPath.EAGER);
        if (mismatch != null)
        {
            rejectSend(peer, senderTransferId, receive, mismatch);
            return;
        }
        if (synchronous)
        {
            outbound.sendAck(peer, senderTransferId);
        }
        try
        {
            if (receive.buffer.isDevice())
            {
                receive.staging = device.allocate(packedBytes);
            }
            receive.write(payloadAddress, 0, (int)packedBytes);
            receive.receivedBytes = packedBytes;
        }
        catch (final RuntimeException ex)
        {
            receive.releaseStaging();
            completions.fail(receive.request, ex);
            return;
        }
        finishReceive(receive);
    }

    /**
     * Starts the rendezvous transfer of an RTS the receive matched: checks it and clears the sender to send.
     */
    void startRendezvous(
        final ReceiveOperation receive,
        final Peer peer,
        final int tag,
        final long senderTransferId,
        final long packedBytes,
        final long signatureHash,
        final long signatureLength,
        final long signatureSizeBytes,
        final long sourcePid,
        final long sourceAddress,
        final int sourceFlags)
    {
        final RuntimeException mismatch =
            checkMatch(receive, peer.rank, tag, packedBytes, signatureHash, signatureLength, signatureSizeBytes);
        matched(receive, peer.rank, tag, packedBytes);
        if (mismatch != null)
        {
            rejectSend(peer, senderTransferId, receive, mismatch);
            return;
        }
        if ((sourceFlags & EnvelopeFlyweight.FLAG_DEVICE_IPC) != 0 &&
            startIpcGet(receive, peer, senderTransferId, sourcePid, sourceAddress))
        {
            return;
        }
        if (receive.buffer.isDevice() && (sourceFlags & EnvelopeFlyweight.FLAG_DIRECT) != 0 &&
            startHostGet(receive, peer, senderTransferId, sourcePid, sourceAddress))
        {
            return;
        }
        final int where = sourceFlags & (EnvelopeFlyweight.FLAG_SHARED | EnvelopeFlyweight.FLAG_DIRECT |
            EnvelopeFlyweight.FLAG_DEVICE_IPC | EnvelopeFlyweight.FLAG_ARENA_CHUNKS);
        if (receive.buffer.isDevice() && where == EnvelopeFlyweight.FLAG_SHARED &&
            startPackedGet(receive, peer, senderTransferId, sourcePid, sourceAddress))
        {
            return;
        }
        if (receive.buffer.isDevice() && where == 0 && sourceAddress != 0 &&
            startReadGet(receive, peer, senderTransferId, sourcePid, sourceAddress))
        {
            return;
        }
        if (receive.buffer.isDevice())
        {
            if ((sourceFlags & EnvelopeFlyweight.FLAG_ARENA_CHUNKS) == 0 ||
                !startArenaReceive(receive, peer, senderTransferId, sourcePid, sourceAddress))
            {
                startChunkedReceive(receive, peer, senderTransferId);
            }
            return;
        }
        if (sourceAddress != 0 && peer.readable &&
            (sourceFlags & (EnvelopeFlyweight.FLAG_ARENA_CHUNKS | EnvelopeFlyweight.FLAG_DEVICE_IPC)) == 0 &&
            (receive.readTarget() != 0 || packedBytes <= HostBufferPool.MAX_BUFFER_BYTES) &&
            readSameNode(receive, peer, sourcePid, sourceAddress, packedBytes, sourceFlags))
        {
            outbound.sendAck(peer, senderTransferId);
            if (!receive.request.isDone())
            {
                finishReceive(receive);
            }
            return;
        }
        receive.transferId = transfers.nextId();
        transfers.receives.put(receive.transferId, receive);
        outbound.sendCts(peer, senderTransferId, receive.transferId, packedBytes);
    }

    /**
     * Gets a device message out of a same-node sender's device buffer, which its RTS offers over IPC: reads the
     * buffer's description from the sender's arena, opens its handle and enqueues the copy or kernels on this rank's
     * device; the receive completes, and the ACK goes back, once {@link #pollGets} sees the device done. A host
     * receive gets the packed bytes in pinned memory and unpacks them then.
     *
     * @return false when the description cannot be read or the handle cannot be opened here (another kind of device,
     * a device that cannot reach the sender's): the receive then clears the sender to send through its stage pipeline.
     */
    private boolean startIpcGet(
        final ReceiveOperation receive, final Peer peer, final long senderTransferId, final long pid,
        final long offset)
    {
        final IpcGets gets = gets(peer);
        if (gets == null)
        {
            return false;
        }
        try
        {
            final IpcDescription.Source source = IpcDescription.read(peerArenas, peer.rank, pid, offset);
            final CompiledType layout =
                gets.layout(source.layout(), bytes -> IpcDescription.layout(peer.rank, bytes));
            IpcDescription.check(peer.rank, source, layout, receive.packedBytes);
            final boolean toDevice = receive.buffer.isDevice();
            device.exporter(peer.rank, source.handle().processId());
            final boolean inPlace = toDevice || registeredInArena(gets, receive);
            receive.transferId = transfers.nextId();
            gets.start(receive.transferId, source.handle(), source.displacement(), source.count(), layout,
                toDevice ? receive.buffer.device() : -1, receive.buffer.baseAddress(), receive.count,
                inPlace ? receive.compiled : null, receive.packedBytes, receive);
        }
        catch (final RuntimeException ex)
        {
            return notGot(peer, "device", ex);
        }
        return getting(receive, peer, senderTransferId, TracedPath.CUDA_IPC);
    }

    /**
     * Copies a host message of a same-node sender into device memory straight out of the sender's buffer, which lies
     * in its shared arena as its description says (an RTS with flag DIRECT): the buffer's pages, mapped here, are
     * registered with this rank's device, whose copy or kernels read them in place; the receive completes, and the ACK
     * goes back, once {@link #pollGets} sees the device done.
     *
     * @return false when there is no device, the description cannot be read or the device refuses the pages: the
     * receive then goes through the stage pipeline.
     */
    private boolean startHostGet(
        final ReceiveOperation receive, final Peer peer, final long senderTransferId, final long pid,
        final long offset)
    {
        final IpcGets gets = gets(peer);
        if (gets == null)
        {
            return false;
        }
        try
        {
            final DirectDescription.Source source =
                DirectDescription.read(peerArenas, peer.rank, pid, offset, receive.packedBytes);
            if (!gets.register(source.lowAddress(), source.lengthBytes()))
            {
                return false;
            }
            receive.transferId = transfers.nextId();
            gets.startFromHost(receive.transferId, source.baseAddress(), source.count(), source.layout(),
                receive.buffer.device(), receive.buffer.baseAddress(), receive.count, receive.compiled,
                receive.packedBytes, receive);
        }
        catch (final RuntimeException ex)
        {
            return notGot(peer, "host", ex);
        }
        return getting(receive, peer, senderTransferId, TracedPath.SHARED_MEMORY);
    }

    /**
     * Copies a host message that a same-node sender packs into its shared arena (an RTS with flag SHARED alone: a
     * scattered layout of short blocks) into device memory: once the sender's count says every byte is packed (it
     * packs right after its RTS, on its own thread), the packed bytes' pages, mapped here, are registered with this
     * rank's device, whose unpack kernel (or copy) reads them in place; the receive completes, and the ACK goes back,
     * once {@link #pollGets} sees the device done.
     *
     * @return false when there is no device, the arena cannot be mapped or the device refuses the pages: the receive
     * then goes through the stage pipeline; true otherwise, the receive failed where the sender could not pack.
     */
    private boolean startPackedGet(
        final ReceiveOperation receive, final Peer peer, final long senderTransferId, final long pid,
        final long offset)
    {
        final IpcGets gets = gets(peer);
        if (gets == null)
        {
            return false;
        }
        final long source;
        try
        {
            source = peerArenas.address(peer.rank, pid, offset, receive.packedBytes);
            if (!gets.register(source, receive.packedBytes))
            {
                return false;
            }
        }
        catch (final RuntimeException ex)
        {
            return notGot(peer, "host", ex);
        }
        try
        {
            ArenaChunks.follow((address, packedOffset, lengthBytes) -> { }, peer.rank, () -> PeerProcesses.isAlive(pid),
                source, receive.packedBytes, settings.livenessTimeoutNs());
            receive.transferId = transfers.nextId();
            gets.startFromHost(receive.transferId, source, receive.packedBytes, PACKED, receive.buffer.device(),
                receive.buffer.baseAddress(), receive.count, receive.compiled, receive.packedBytes, receive);
        }
        catch (final RuntimeException ex)
        {
            completions.fail(receive.request, ex);
            return true;
        }
        return getting(receive, peer, senderTransferId, TracedPath.SHARED_MEMORY);
    }

    /**
     * Copies a contiguous host message of a same-node sender whose buffer is not shared (an RTS with flag READABLE
     * alone) into device memory: read out of the sender's process into pinned memory on this thread (one system
     * call), then one copy or the unpack kernel on this rank's device; the receive completes, and the ACK goes back,
     * once {@link #pollGets} sees the device done.
     *
     * @return false when there is no device or the read is refused: the receive then goes through the stage pipeline.
     */
    private boolean startReadGet(
        final ReceiveOperation receive, final Peer peer, final long senderTransferId, final long pid,
        final long address)
    {
        final IpcGets gets = gets(peer);
        if (gets == null || receive.packedBytes > HostBufferPool.MAX_BUFFER_BYTES)
        {
            return false;
        }
        try
        {
            receive.transferId = transfers.nextId();
            gets.startThroughPinned(receive.transferId, pinned ->
            {
                final long read = CrossMemory.read(pid, address, pinned, receive.packedBytes);
                if (read != receive.packedBytes)
                {
                    throw new IllegalStateException("read " + (read < 0 ? CrossMemory.describe(read) : read +
                        " of " + receive.packedBytes + " bytes") + " of rank " + peer.rank + "'s memory");
                }
            }, receive.packedBytes, receive.buffer.device(), receive.buffer.baseAddress(), receive.count,
                receive.compiled, receive);
        }
        catch (final RuntimeException ex)
        {
            return notGot(peer, "host", ex);
        }
        return getting(receive, peer, senderTransferId, TracedPath.SHARED_MEMORY);
    }

    /**
     * @return the gets of this rank's device, for a message of a same-node peer whose arena this rank maps; null
     * without a device or such a peer.
     */
    private IpcGets gets(final Peer peer)
    {
        final IpcGets gets = device.gets();
        return gets == null || peerArenas == null || !peer.readable ? null : gets;
    }

    /**
     * A get started: the receive waits for it among the transfers, and cannot fail before its device work ended.
     *
     * @return true.
     */
    private boolean getting(
        final ReceiveOperation receive, final Peer peer, final long senderTransferId, final TracedPath path)
    {
        TransferTrace.begun(device.tracer(), receive, path, 1);
        receive.senderTransferId = senderTransferId;
        receive.ipcGet = true;
        transfers.receives.put(receive.transferId, receive);
        peer.ipcGets++;
        return true;
    }

    /**
     * @return false: a get could not start, and the message comes through the stage pipeline.
     */
    private boolean notGot(final Peer peer, final String memory, final RuntimeException ex)
    {
        LOG.info("rank {}: rank {}'s {} message comes through the stage pipeline: {}", rank, peer.rank, memory,
            ex.getMessage());
        return false;
    }

    /**
     * @return whether a host receive buffer lies whole in this rank's shared arena and is registered with the device
     * now, for a get to write it in place.
     */
    private boolean registeredInArena(final IpcGets gets, final ReceiveOperation receive)
    {
        final long low = receive.buffer.lowAddress();
        final long length = receive.buffer.lengthBytes();
        final long offset = hostBuffers.sharedOffset(low);
        return length > 0 && offset >= 0 && hostBuffers.sharedOffset(low + length - 1) == offset + length - 1 &&
            gets.register(low, length);
    }

    /**
     * A same-node peer freed a device allocation it offered over IPC: the mapping of that export closes, at once where
     * no get reads it, when the last one ends otherwise.
     */
    void ipcReleased(final Peer peer, final long allocationAddress, final long exportNumber)
    {
        device.released(peer.rank, allocationAddress, exportNumber);
    }

    /**
     * Completes the receives whose gets the device finished, in the order they started.
     *
     * @return gets that ended, or 1 while some are in flight.
     */
    int pollGets()
    {
        return device.pollGets(getDone);
    }

    private void getDone(final Object attachment, final long packedAddress, final RuntimeException failure)
    {
        final ReceiveOperation receive = (ReceiveOperation)attachment;
        receive.ipcGet = false;
        if (transfers.receives.get(receive.transferId) != receive || receive.request.isDone())
        {
            return;
        }
        transfers.receives.remove(receive.transferId);
        final Peer peer = liveness.peer(receive.matchedSource);
        if (peer.isGone())
        {
            completions.fail(receive.request, goneError(peer, receive.request));
            return;
        }
        RuntimeException error = failure;
        if (error == null && packedAddress != 0)
        {
            try
            {
                for (long done = 0; done < receive.packedBytes; done += Integer.MAX_VALUE & ~4095)
                {
                    final int lengthBytes = (int)Math.min(Integer.MAX_VALUE & ~4095, receive.packedBytes - done);
                    receive.write(packedAddress + done, done, lengthBytes);
                }
            }
            catch (final RuntimeException ex)
            {
                error = ex;
            }
        }
        if (error != null)
        {
            completions.fail(receive.request, error);
            if (!peer.isGone())
            {
                outbound.control(peer, new ControlMessage(MessageType.ERROR, receive.senderTransferId, 0, 0,
                    ErrorFlyweight.FLAG_SEND, ErrorFlyweight.CODE_STAGING, "rank " + rank +
                    " could not get the message out of the send buffer: " + error.getMessage()));
            }
            return;
        }
        if (!peer.isGone())
        {
            outbound.sendAck(peer, receive.senderTransferId);
        }
        receive.receivedBytes = receive.packedBytes;
        completions.completeReceive(receive);
    }

    /**
     * @param peerArenas the same-node peers' shared arenas, mapped as their messages name them.
     */
    void peerArenas(final PeerArenas peerArenas)
    {
        this.peerArenas = peerArenas;
    }

    private boolean readSameNode(final ReceiveOperation receive, final Peer peer, final long pid, final long address,
        final long packedBytes, final int sourceFlags)
    {
        if ((sourceFlags & EnvelopeFlyweight.FLAG_DIRECT) != 0)
        {
            return copyDirect(receive, peer, pid, address, packedBytes);
        }
        return (sourceFlags & EnvelopeFlyweight.FLAG_SHARED) != 0 ?
            copyFromArena(receive, peer, pid, address, packedBytes) :
            readFromSender(receive, peer, pid, address, packedBytes);
    }

    /**
     * Copies a scattered message straight out of a same-node sender's buffer, which lies in its shared arena: walks
     * the sender's layout over this process's mapping of the buffer, packing into the receive buffer where it is
     * contiguous, row to row where both sides are rows alike, and otherwise {@link #DIRECT_CHUNK_BYTES} at a time
     * into a pooled buffer that stays in the cache, unpacked at once (two bulk copies per chunk cost less than a call
     * per block). One copy between the processes, where packing into the arena and unpacking out of it take two. A
     * description that cannot be mapped or read turns same-node transfers from that peer to CTS and DATA.
     *
     * @return true when the transfer is over: every byte arrived, or unpacking them failed the receive; false when
     * the description could not be read.
     */
    private boolean copyDirect(
        final ReceiveOperation receive, final Peer peer, final long pid, final long offset, final long packedBytes)
    {
        final DirectDescription.Source source;
        try
        {
            if (peerArenas == null)
            {
                throw new IllegalStateException("shared arenas are closed");
            }
            source = DirectDescription.read(peerArenas, peer.rank, pid, offset, packedBytes);
        }
        catch (final RuntimeException ex)
        {
            peer.readable = false;
            LOG.info("rank {}: {}; rank {}'s messages come through the log buffer", rank, ex.getMessage(), peer.rank);
            return false;
        }
        final long target = receive.readTarget();
        PackedHostBuffer chunk = null;
        try
        {
            if (target != 0)
            {
                source.layout().pack(source.baseAddress(), source.count(), 0, packedBytes, target);
            }
            else if (!copyRows(source, receive))
            {
                chunk = hostBuffers.acquire(DIRECT_CHUNK_BYTES);
                for (long done = 0; done < packedBytes; done += DIRECT_CHUNK_BYTES)
                {
                    final int lengthBytes = (int)Math.min(DIRECT_CHUNK_BYTES, packedBytes - done);
                    source.layout().pack(source.baseAddress(), source.count(), done, lengthBytes, chunk.address());
                    receive.write(chunk.address(), done, lengthBytes);
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
            if (chunk != null)
            {
                chunk.release();
            }
        }
        receive.receivedBytes = packedBytes;
        TransferTrace.begun(device.tracer(), receive, TracedPath.SHARED_MEMORY, 1);
        peer.reads++;
        peer.directCopies++;
        return true;
    }

    /**
     * One instance of rows into one instance of rows alike in host memory (a halo face on both sides): one strided
     * copy, row to row.
     *
     * @return false when the two are not alike, and nothing was copied.
     */
    private static boolean copyRows(final DirectDescription.Source source, final ReceiveOperation receive)
    {
        return source.count() == 1 && receive.count == 1 && receive.staging == null && !receive.buffer.isDevice() &&
            source.layout().copyRows(source.baseAddress(), receive.compiled, receive.buffer.baseAddress());
    }

    /**
     * Copies a same-node sender's packed bytes out of its shared arena into the receive buffer or its staging
     * memory, or unpacks them from there when the receive type scatters them: one copy, no system call. An arena
     * that cannot be mapped turns same-node transfers from that peer to CTS and DATA.
     *
     * @return true when the transfer is over: every byte arrived, or unpacking them failed the receive; false when
     * the arena could not be mapped.
     */
    private boolean copyFromArena(
        final ReceiveOperation receive, final Peer peer, final long pid, final long offset, final long packedBytes)
    {
        final long source;
        try
        {
            if (peerArenas == null)
            {
                throw new IllegalStateException("shared arenas are closed");
            }
            source = peerArenas.address(peer.rank, pid, offset, packedBytes);
        }
        catch (final IllegalStateException ex)
        {
            peer.readable = false;
            LOG.info("rank {}: {}; rank {}'s messages come through the log buffer", rank, ex.getMessage(), peer.rank);
            return false;
        }
        try
        {
            ArenaChunks.follow(receive::write, peer.rank, () -> PeerProcesses.isAlive(pid), source, packedBytes,
                settings.livenessTimeoutNs());
        }
        catch (final RuntimeException ex)
        {
            completions.fail(receive.request, ex);
            return true;
        }
        receive.receivedBytes = packedBytes;
        TransferTrace.begun(device.tracer(), receive, TracedPath.SHARED_MEMORY, 1);
        peer.reads++;
        peer.arenaCopies++;
        return true;
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
    private boolean readFromSender(
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
            TransferTrace.begun(device.tracer(), receive, TracedPath.SHARED_MEMORY, 1);
            peer.reads++;
            return true;
        }
        peer.readable = false;
        LOG.info("rank {} cannot read rank {}'s memory (process {}): {}; its messages come through the log buffer",
            rank, peer.rank, pid, result < 0 ? CrossMemory.describe(result) : "read " + result + " of " +
            packedBytes + " bytes");
        return false;
    }

    /**
     * The stage pipeline offers host memory for the chunks of a device receive; the sender streams into it as each
     * offer widens its window (a CTS per offer), and each chunk is unpacked as it arrives.
     */
    private void startChunkedReceive(final ReceiveOperation receive, final Peer peer, final long senderTransferId)
    {
        receive.transferId = transfers.nextId();
        receive.senderTransferId = senderTransferId;
        try
        {
            receive.chunked = device.startReceive(engine, receive);
        }
        catch (final RuntimeException ex)
        {
            completions.fail(receive.request, ex);
            outbound.control(peer, new ControlMessage(MessageType.ERROR, senderTransferId, 0, 0,
                ErrorFlyweight.FLAG_SEND, ErrorFlyweight.CODE_STAGING, "rank " + rank +
                " could not stage the receive: " + ex.getMessage()));
            return;
        }
        transfers.receives.put(receive.transferId, receive);
    }

    /**
     * A large device message from a same-node sender whose stage pipeline packs the chunks into slots of its shared
     * arena: this rank maps that slot region, registers it with its device and takes each chunk out in place as the
     * sender's CHUNK names it (a CTS with FLAG_ARENA says so).
     *
     * @return false when the region cannot be mapped or registered here: the chunks then come as DATA.
     */
    private boolean startArenaReceive(
        final ReceiveOperation receive, final Peer peer, final long senderTransferId, final long sourcePid,
        final long region)
    {
        final long regionOffset = EnvelopeFlyweight.slotRegionOffset(region);
        final long regionLength = EnvelopeFlyweight.slotRegionLength(region);
        final long regionBase;
        try
        {
            if (!peer.readable || peerArenas == null)
            {
                return false;
            }
            regionBase = peerArenas.slotRegion(peer.rank, sourcePid, region, regionOffset, regionLength);
        }
        catch (final IllegalStateException ex)
        {
            LOG.info("rank {}: large device messages of rank {} come as DATA: {}", rank, peer.rank, ex.getMessage());
            return false;
        }
        if (!device.registerPeerSlots(peer.rank, regionBase, regionLength))
        {
            return false;
        }
        receive.transferId = transfers.nextId();
        receive.senderTransferId = senderTransferId;
        receive.arenaBase = regionBase - regionOffset;
        receive.regionOffset = regionOffset;
        receive.regionLength = regionLength;
        transfers.receives.put(receive.transferId, receive);
        outbound.sendCts(peer, ClearToSendFlyweight.FLAG_ARENA, senderTransferId, receive.transferId,
            receive.packedBytes);
        return true;
    }

    /**
     * A CHUNK: a chunk of a device receive lies in the sender's arena. The first starts the receive's pipeline, with
     * the sender's chunk size; each goes to the pipeline to be unpacked in place.
     *
     * @return false when the CHUNK names a chunk outside the transfer or bytes outside the sender's slot region.
     */
    boolean chunkInArena(final ReceiveOperation receive, final int chunk, final int chunkBytes, final long arenaOffset)
    {
        if (receive.chunked == null)
        {
            if (chunkBytes < 1)
            {
                return false;
            }
            receive.chunked = device.startReceive(engine, receive, receive.arenaBase, chunkBytes);
            receive.chunked.regionOffset = receive.regionOffset;
            receive.chunked.regionLength = receive.regionLength;
        }
        return receive.chunked.plan.chunkBytes() == chunkBytes && receive.chunked.arrivedInArena(chunk, arenaOffset);
    }

    /**
     * The stage pipeline offered host memory for another chunk of a device receive: the sender may send up to its
     * end.
     */
    void windowGrew(final ReceiveOperation receive)
    {
        final Peer peer = liveness.peer(receive.matchedSource);
        if (!receive.request.isDone() && transfers.receives.get(receive.transferId) == receive && !peer.isGone())
        {
            outbound.sendCts(peer, receive.senderTransferId, receive.transferId, receive.chunked.windowBytes());
        }
    }

    /**
     * A chunk of a device receive reached the device buffer: a sender whose arena held it may reuse the slot; the
     * receive completes with its last chunk (once the sender's FIN came, when the chunks came as DATA).
     */
    void chunkUnpacked(final ReceiveOperation receive, final int chunk)
    {
        final ChunkedReceive chunked = receive.chunked;
        if (chunked.arenaBase != 0 && chunk >= 0 && !receive.request.isDone())
        {
            outbound.sendChunkDone(liveness.peer(receive.matchedSource), receive.senderTransferId, chunk);
        }
        if (chunked.isUnpacked() && chunked.finished && !receive.request.isDone())
        {
            transfers.receives.remove(receive.transferId);
            receive.receivedBytes = receive.packedBytes;
            completions.completeReceive(receive);
        }
    }

    /**
     * The stage pipeline failed to unpack a chunk of a device receive: the receive fails, and the sender is told.
     */
    void chunkedReceiveFailed(final ReceiveOperation receive, final Throwable failure)
    {
        receive.chunked.stopped();
        if (receive.request.isDone())
        {
            return;
        }
        completions.fail(receive.request, failure);
        if (transfers.receives.remove(receive.transferId) != null)
        {
            outbound.control(liveness.peer(receive.matchedSource), new ControlMessage(MessageType.ERROR,
                receive.senderTransferId, 0, 0, ErrorFlyweight.FLAG_SEND, ErrorFlyweight.CODE_STAGING, "rank " + rank +
                " could not unpack the message into device memory: " + failure.getMessage()));
        }
    }

    /**
     * Completes a receive whose bytes all arrived: a small device receive is unpacked from its staging memory first,
     * on this thread; a chunked one completes once its last chunk is unpacked.
     */
    void finishReceive(final ReceiveOperation receive)
    {
        if (receive.chunked != null)
        {
            receive.chunked.finished = true;
            chunkUnpacked(receive, -1);
            return;
        }
        if (receive.staging != null)
        {
            try
            {
                device.unpackNow(receive);
            }
            catch (final RuntimeException ex)
            {
                completions.fail(receive.request, ex);
                return;
            }
        }
        completions.completeReceive(receive);
    }

    /**
     * @return the off-heap address of bytes of a buffer: in place, or copied to scratch memory for a heap buffer.
     */
    long payloadAddress(final DirectBuffer buffer, final int index, final int lengthBytes)
    {
        if (buffer.byteArray() == null)
        {
            return buffer.addressOffset() + index;
        }
        scratch.putBytes(0, buffer, index, lengthBytes);
        return scratch.addressOffset();
    }

    private void matchUnexpected(final ReceiveOperation receive, final UnexpectedMessage message)
    {
        final Peer peer = liveness.peer(message.source);
        if (message.isEager())
        {
            peer.owedCreditBytes += message.creditBytes;
            scratch.putBytes(0, message.payload);
            deliverEager(receive, peer, message.tag, message.synchronous, message.senderTransferId,
                message.packedBytes, message.signatureHash, message.signatureLength, message.signatureSizeBytes,
                scratch.addressOffset());
        }
        else if (peer.isGone())
        {
            completions.fail(receive.request, goneError(peer, receive.request));
        }
        else
        {
            startRendezvous(receive, peer, message.tag, message.senderTransferId, message.packedBytes,
                message.signatureHash, message.signatureLength, message.signatureSizeBytes, message.sourcePid,
                message.sourceAddress, message.sourceFlags);
        }
    }

    private void rejectSend(
        final Peer peer, final long senderTransferId, final ReceiveOperation receive, final RuntimeException mismatch)
    {
        completions.fail(receive.request, mismatch);
        outbound.control(peer, new ControlMessage(MessageType.ERROR, senderTransferId, 0, 0, ErrorFlyweight.FLAG_SEND,
            rejectionCode(mismatch), "rank " + rank + " rejected the message: " + mismatch.getMessage()));
    }

    private static void matched(final ReceiveOperation receive, final int source, final int tag, final long bytes)
    {
        receive.matchedSource = source;
        receive.matchedTag = tag;
        receive.packedBytes = bytes;
    }
}
