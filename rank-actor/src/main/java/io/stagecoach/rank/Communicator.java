package io.stagecoach.rank;

import java.nio.ByteBuffer;
import java.util.Optional;
import java.util.function.Consumer;

import io.stagecoach.device.Allocation;
import io.stagecoach.device.DeviceRuntime;
import io.stagecoach.device.MemoryRegion;
import io.stagecoach.device.MemoryType;
import io.stagecoach.protocol.ErrorClass;
import io.stagecoach.protocol.datatype.CompiledType;
import io.stagecoach.protocol.datatype.Datatype;
import io.stagecoach.rank.engine.ArrivalListener;
import io.stagecoach.rank.engine.AwaitIdler;
import io.stagecoach.rank.engine.EngineCommand;
import io.stagecoach.rank.engine.ProgressEngine;
import io.stagecoach.rank.engine.ReceiveOperation;
import io.stagecoach.rank.engine.SendOperation;
import io.stagecoach.rank.engine.SignatureCache;
import io.stagecoach.rank.engine.SignatureEntry;
import io.stagecoach.rank.memory.MessageBuffer;
import io.stagecoach.rank.memory.MessageMemory;
import org.agrona.BufferUtil;

/**
 * The ranks of a job and the point-to-point operations between them (the world communicator, MPI_COMM_WORLD).
 * <p>
 * Buffers are direct {@link ByteBuffer}s (displacement 0 of the datatype at the buffer's position, the data kept
 * within [0, limit)), raw off-heap addresses with a capacity, or {@link Allocation}s of the device layer. Whether
 * memory is host or device memory is detected once per request (a raw address is looked up in the device layer's
 * memory map when a {@link DeviceRuntime} is configured). Any committed {@link Datatype} describes the data.
 * <p>
 * Every operation is non-blocking at heart: {@code isend}/{@code irecv} return a {@link Request}; the blocking forms
 * wait on it. Bad arguments (an unknown rank, a negative tag or count, an uncommitted or freed datatype, a buffer
 * too small for the data, a freed device buffer) fail the returned request with an error naming the value and the
 * limit; nothing else is disturbed. Thread safe: any thread may post and wait.
 */
public final class Communicator implements AutoCloseable
{
    /** Receive from any rank (MPI_ANY_SOURCE). */
    public static final int ANY_SOURCE = -1;
    /** Receive with any tag (MPI_ANY_TAG). */
    public static final int ANY_TAG = -1;

    static final int WORLD_CONTEXT = 0;

    private final ProgressEngine engine;
    private final RankRuntime runtime;
    private final DeviceRuntime deviceRuntime;
    private final SignatureCache signatures = new SignatureCache();
    private final MessageMemory memory;

    Communicator(final ProgressEngine engine, final RankRuntime runtime, final DeviceRuntime deviceRuntime)
    {
        this.engine = engine;
        this.runtime = runtime;
        this.deviceRuntime = deviceRuntime;
        this.memory = new MessageMemory(engine.sharedArena());
    }

    /**
     * @return this process's rank, in [0, size).
     */
    public int rank()
    {
        return engine.rank();
    }

    /**
     * @return the number of ranks.
     */
    public int size()
    {
        return engine.size();
    }

    /**
     * Memory for messages (MPI_Alloc_mem): a direct buffer of this many bytes, native order. Where the rank has a
     * shared arena with room, the buffer lies in it, and a scattered message sent from it to a rank of the same node
     * is copied by the receiver straight out of the buffer, one copy where packing takes two; elsewhere it is an
     * ordinary direct buffer. Its contents are undefined until written.
     *
     * @param bytes in [1, {@link Integer#MAX_VALUE}]; the arena's size is {@code stagecoach.shared.arena.bytes}.
     * @return the buffer, to be given back with {@link #free(ByteBuffer)}.
     * @throws IllegalArgumentException naming the size and the limits.
     * @throws StagecoachException      after {@link #close()}.
     */
    public ByteBuffer allocate(final long bytes)
    {
        checkOpen();
        return memory.allocate(bytes);
    }

    /**
     * Gives back a buffer of {@link #allocate(long)} (MPI_Free_mem), once no request uses it.
     *
     * @param buffer the buffer as allocate returned it.
     * @throws IllegalArgumentException when the buffer was not allocated here, or was freed already.
     * @throws StagecoachException      after {@link #close()}, which gives back all of this memory.
     */
    public void free(final ByteBuffer buffer)
    {
        checkOpen();
        memory.free(buffer);
    }

    /**
     * Starts a standard-mode send (MPI_Isend) from a direct ByteBuffer. Completes when the buffer may be reused.
     *
     * @param buffer      direct buffer; displacement 0 is at its position.
     * @param count       instances of {@code type}, >= 0.
     * @param type        a committed datatype.
     * @param destination rank in [0, size).
     * @param tag         >= 0.
     * @return the request.
     */
    public Request isend(
        final ByteBuffer buffer, final long count, final Datatype type, final int destination, final int tag)
    {
        return send("isend", false, DataBuffer.of(buffer), count, type, destination, tag, null);
    }

    /**
     * Starts a standard-mode send from raw memory: host memory, or device memory when a device runtime knows the
     * address.
     *
     * @param address       displacement 0 of the datatype.
     * @param capacityBytes bytes from {@code address} the data must stay within.
     * @param count         instances of {@code type}, >= 0.
     * @param type          a committed datatype.
     * @param destination   rank in [0, size).
     * @param tag           >= 0.
     * @return the request.
     */
    public Request isend(
        final long address,
        final long capacityBytes,
        final long count,
        final Datatype type,
        final int destination,
        final int tag)
    {
        return send("isend", false, DataBuffer.of(address, capacityBytes), count, type, destination, tag, null);
    }

    /**
     * Starts a standard-mode send from memory of the device layer (device, pinned or registered memory).
     *
     * @param buffer      an allocation, not freed; displacement 0 at its first byte.
     * @param count       instances of {@code type}, >= 0.
     * @param type        a committed datatype.
     * @param destination rank in [0, size).
     * @param tag         >= 0.
     * @return the request.
     */
    public Request isend(
        final Allocation buffer, final long count, final Datatype type, final int destination, final int tag)
    {
        return send("isend", false, DataBuffer.of(buffer), count, type, destination, tag, null);
    }

    /**
     * Starts a synchronous-mode send (MPI_Issend): completes only once a receive matched the message, and fails
     * when the receiver rejects it (truncation, type mismatch), whatever its size.
     *
     * @param buffer      direct buffer; displacement 0 is at its position.
     * @param count       instances of {@code type}, >= 0.
     * @param type        a committed datatype.
     * @param destination rank in [0, size).
     * @param tag         >= 0.
     * @return the request.
     */
    public Request issend(
        final ByteBuffer buffer, final long count, final Datatype type, final int destination, final int tag)
    {
        return send("issend", true, DataBuffer.of(buffer), count, type, destination, tag, null);
    }

    /**
     * Starts a receive (MPI_Irecv) into a direct ByteBuffer.
     *
     * @param buffer direct, writable buffer; displacement 0 is at its position.
     * @param count  instances of {@code type} the buffer holds, >= 0.
     * @param type   a committed datatype.
     * @param source rank in [0, size) or {@link #ANY_SOURCE}.
     * @param tag    >= 0 or {@link #ANY_TAG}.
     * @return the request; its status tells the source, tag and count received.
     */
    public Request irecv(
        final ByteBuffer buffer, final long count, final Datatype type, final int source, final int tag)
    {
        return receive(DataBuffer.of(buffer), count, type, source, tag, null);
    }

    /**
     * Starts a receive into raw memory: host memory, or device memory when a device runtime knows the address.
     *
     * @param address       displacement 0 of the datatype.
     * @param capacityBytes bytes from {@code address} the data must stay within.
     * @param count         instances of {@code type}, >= 0.
     * @param type          a committed datatype.
     * @param source        rank in [0, size) or {@link #ANY_SOURCE}.
     * @param tag           >= 0 or {@link #ANY_TAG}.
     * @return the request.
     */
    public Request irecv(
        final long address, final long capacityBytes, final long count, final Datatype type, final int source,
        final int tag)
    {
        return receive(DataBuffer.of(address, capacityBytes), count, type, source, tag, null);
    }

    /**
     * Starts a receive into memory of the device layer.
     *
     * @param buffer an allocation, not freed; displacement 0 at its first byte.
     * @param count  instances of {@code type}, >= 0.
     * @param type   a committed datatype.
     * @param source rank in [0, size) or {@link #ANY_SOURCE}.
     * @param tag    >= 0 or {@link #ANY_TAG}.
     * @return the request.
     */
    public Request irecv(
        final Allocation buffer, final long count, final Datatype type, final int source, final int tag)
    {
        return receive(DataBuffer.of(buffer), count, type, source, tag, null);
    }

    /**
     * Blocking standard-mode send (MPI_Send).
     *
     * @param buffer      direct buffer.
     * @param count       instances.
     * @param type        a committed datatype.
     * @param destination rank.
     * @param tag         >= 0.
     * @return the status.
     */
    public Status send(
        final ByteBuffer buffer, final long count, final Datatype type, final int destination, final int tag)
    {
        return isend(buffer, count, type, destination, tag).await();
    }

    /**
     * Blocking send from raw memory.
     *
     * @param address       displacement 0.
     * @param capacityBytes bytes the data must stay within.
     * @param count         instances.
     * @param type          a committed datatype.
     * @param destination   rank.
     * @param tag           >= 0.
     * @return the status.
     */
    public Status send(
        final long address, final long capacityBytes, final long count, final Datatype type, final int destination,
        final int tag)
    {
        return isend(address, capacityBytes, count, type, destination, tag).await();
    }

    /**
     * Blocking send from device-layer memory.
     *
     * @param buffer      an allocation.
     * @param count       instances.
     * @param type        a committed datatype.
     * @param destination rank.
     * @param tag         >= 0.
     * @return the status.
     */
    public Status send(
        final Allocation buffer, final long count, final Datatype type, final int destination, final int tag)
    {
        return isend(buffer, count, type, destination, tag).await();
    }

    /**
     * Blocking synchronous-mode send (MPI_Ssend).
     *
     * @param buffer      direct buffer.
     * @param count       instances.
     * @param type        a committed datatype.
     * @param destination rank.
     * @param tag         >= 0.
     * @return the status.
     */
    public Status ssend(
        final ByteBuffer buffer, final long count, final Datatype type, final int destination, final int tag)
    {
        return issend(buffer, count, type, destination, tag).await();
    }

    /**
     * Blocking receive (MPI_Recv).
     *
     * @param buffer direct, writable buffer.
     * @param count  instances it holds.
     * @param type   a committed datatype.
     * @param source rank or {@link #ANY_SOURCE}.
     * @param tag    tag or {@link #ANY_TAG}.
     * @return the status: source, tag, count received.
     */
    public Status recv(final ByteBuffer buffer, final long count, final Datatype type, final int source, final int tag)
    {
        return irecv(buffer, count, type, source, tag).await();
    }

    /**
     * Blocking receive into raw memory.
     *
     * @param address       displacement 0.
     * @param capacityBytes bytes the data must stay within.
     * @param count         instances.
     * @param type          a committed datatype.
     * @param source        rank or {@link #ANY_SOURCE}.
     * @param tag           tag or {@link #ANY_TAG}.
     * @return the status.
     */
    public Status recv(
        final long address, final long capacityBytes, final long count, final Datatype type, final int source,
        final int tag)
    {
        return irecv(address, capacityBytes, count, type, source, tag).await();
    }

    /**
     * Blocking receive into device-layer memory.
     *
     * @param buffer an allocation.
     * @param count  instances.
     * @param type   a committed datatype.
     * @param source rank or {@link #ANY_SOURCE}.
     * @param tag    tag or {@link #ANY_TAG}.
     * @return the status.
     */
    public Status recv(final Allocation buffer, final long count, final Datatype type, final int source, final int tag)
    {
        return irecv(buffer, count, type, source, tag).await();
    }

    /**
     * Sends and receives at once (MPI_Sendrecv): both are posted before either is waited for, so a ring of
     * sendrecv calls cannot deadlock.
     *
     * @param sendBuffer  direct buffer to send from.
     * @param sendCount   instances to send.
     * @param sendType    a committed datatype.
     * @param destination rank to send to.
     * @param sendTag     tag of the sent message.
     * @param recvBuffer  direct buffer to receive into.
     * @param recvCount   instances it holds.
     * @param recvType    a committed datatype.
     * @param source      rank to receive from, or {@link #ANY_SOURCE}.
     * @param recvTag     tag to receive, or {@link #ANY_TAG}.
     * @return the status of the receive.
     */
    public Status sendrecv(
        final ByteBuffer sendBuffer,
        final long sendCount,
        final Datatype sendType,
        final int destination,
        final int sendTag,
        final ByteBuffer recvBuffer,
        final long recvCount,
        final Datatype recvType,
        final int source,
        final int recvTag)
    {
        final Request received = irecv(recvBuffer, recvCount, recvType, source, recvTag);
        final Request sent = isend(sendBuffer, sendCount, sendType, destination, sendTag);
        final Status status = received.await();
        sent.await();
        return status;
    }

    /**
     * Non-blocking probe (MPI_Iprobe): after a duty cycle, the envelope of the earliest message that a receive
     * with this source and tag would match, without receiving it.
     *
     * @param source rank or {@link #ANY_SOURCE}.
     * @param tag    tag or {@link #ANY_TAG}.
     * @return its status, {@link Status#count()} in bytes; empty when no such message has arrived.
     * @throws StagecoachException after {@link #close()}.
     */
    public Optional<Status> iprobe(final int source, final int tag)
    {
        checkOpen();
        checkSource(source);
        checkTag(tag, true);
        return Optional.ofNullable(engine.probe(source, tag, WORLD_CONTEXT));
    }

    /**
     * Blocking probe (MPI_Probe): waits, driving progress, until a matching message arrived.
     *
     * @param source rank or {@link #ANY_SOURCE}.
     * @param tag    tag or {@link #ANY_TAG}.
     * @return its status, {@link Status#count()} in bytes.
     * @throws PeerLostException   when {@code source} is gone before a message from it arrived.
     * @throws StagecoachException after {@link #close()}.
     */
    public Status probe(final int source, final int tag)
    {
        checkOpen();
        checkSource(source);
        checkTag(tag, true);
        final Request waiting = new Request(engine, "probe", source, tag, 0, Datatype.BYTE);
        final AwaitIdler idler = engine.newIdler();
        engine.waiterActive(1);
        try
        {
            while (true)
            {
                checkOpen();
                final Status status = engine.probe(source, tag, WORLD_CONTEXT);
                if (status != null)
                {
                    return status;
                }
                Request.checkInterrupt(waiting);
                idler.idle(0, waiting);
            }
        }
        finally
        {
            engine.waiterActive(-1);
        }
    }

    /**
     * Leaves the job (MPI_Finalize): fails the requests still in flight, says goodbye (BYE) to every peer and waits
     * until each confirms that it has read everything this rank sent, or is lost, so that a send completed before
     * close is delivered; then releases the transport, the progress thread, the actor system and whatever the rank
     * started (an embedded media driver, the rendezvous client). Idempotent. A program that ends without calling it
     * is closed on its way out, with a warning.
     *
     * @throws StagecoachException after releasing everything, when a peer that is still there did not confirm within
     *                             the close timeout ({@link StagecoachContext#closeTimeout(java.time.Duration)}).
     */
    public void close()
    {
        runtime.close();
    }

    /**
     * @return true once {@link #close()} ran.
     */
    public boolean isClosed()
    {
        return engine.isClosed();
    }

    public String toString()
    {
        return "Communicator{rank=" + rank() + ", size=" + size() + "}";
    }

    ProgressEngine engine()
    {
        return engine;
    }

    RankRuntime runtime()
    {
        return runtime;
    }

    /**
     * Starts a send whose completion a listener is told of, for a thread that must not wait or run other threads'
     * work (an actor's): see {@link #post}.
     */
    Request isend(
        final DataBuffer buffer, final long count, final Datatype type, final int destination, final int tag,
        final CompletionListener listener)
    {
        return send("isend", false, buffer, count, type, destination, tag, listener);
    }

    /**
     * Starts a receive whose completion a listener is told of, for a thread that must not wait or run other threads'
     * work (an actor's): see {@link #post}.
     */
    Request irecv(
        final DataBuffer buffer, final long count, final Datatype type, final int source, final int tag,
        final CompletionListener listener)
    {
        return receive(buffer, count, type, source, tag, listener);
    }

    /**
     * MPI_Iprobe for a thread that must not wait for the engine: the answer comes to {@code answer} once the probe ran
     * ({@link ProgressEngine#probe(int, int, int, java.util.function.Consumer)}).
     *
     * @throws InvalidArgumentException naming a bad source or tag.
     * @throws StagecoachException      after {@link #close()}.
     */
    void iprobe(final int source, final int tag, final Consumer<Status> answer)
    {
        checkOpen();
        checkSource(source);
        checkTag(tag, true);
        engine.probe(source, tag, WORLD_CONTEXT, answer);
    }

    /**
     * Tells the listener of every message with this tag (or any, for {@link #ANY_TAG}) that arrives before a receive
     * matches it, and of those held when the watch starts.
     *
     * @throws InvalidArgumentException naming a bad tag.
     * @throws StagecoachException      after {@link #close()}.
     */
    void watchArrivals(final int tag, final ArrivalListener listener)
    {
        checkOpen();
        checkTag(tag, true);
        engine.watchArrivals(tag, WORLD_CONTEXT, listener);
    }

    void unwatchArrivals(final ArrivalListener listener)
    {
        engine.unwatchArrivals(listener);
    }

    private Request send(
        final String operation,
        final boolean synchronous,
        final DataBuffer data,
        final long count,
        final Datatype type,
        final int destination,
        final int tag,
        final CompletionListener listener)
    {
        final Request request = new Request(engine, operation, destination, tag, count, type, listener);
        try
        {
            checkOpen();
            checkDestination(destination);
            checkTag(tag, false);
            final CompiledType compiled = compiled(type, count);
            final MessageBuffer buffer = resolve(data, compiled, count, type, "send", false);
            final SignatureEntry signature = signatures.lookup(type, count);
            post(new SendOperation(request, destination, tag, WORLD_CONTEXT, synchronous, buffer, count, compiled,
                signature), buffer, compiled.packSize(count), listener);
        }
        catch (final RuntimeException ex)
        {
            failAtOnce(request, Status.failed(destination, tag, ex));
        }
        return request;
    }

    private Request receive(
        final DataBuffer data,
        final long count,
        final Datatype type,
        final int source,
        final int tag,
        final CompletionListener listener)
    {
        final Request request = new Request(engine, "irecv", source, tag, count, type, listener);
        try
        {
            checkOpen();
            checkSource(source);
            checkTag(tag, true);
            final CompiledType compiled = compiled(type, count);
            final MessageBuffer buffer = resolve(data, compiled, count, type, "receive", true);
            final SignatureEntry signature = signatures.lookup(type, count);
            post(new ReceiveOperation(request, source, tag, WORLD_CONTEXT, buffer, count, compiled, signature),
                buffer, compiled.packSize(count), listener);
        }
        catch (final RuntimeException ex)
        {
            failAtOnce(request, Status.failed(source, tag, ex));
        }
        return request;
    }

    /**
     * Hands a request's operation to the engine. Without a listener the posting thread runs it when the engine is
     * free, as any thread may. With one, the thread is an actor's: it runs the operation on the spot only when the
     * work is small and bounded, host memory within the eager threshold (one eager message, or a receive that copies
     * at most that many bytes), and only when no other thread's command waits; device memory (whose staging may wait
     * for the device) and larger messages go to the progress thread.
     */
    private void post(
        final EngineCommand operation, final MessageBuffer buffer, final long packedBytes,
        final CompletionListener listener)
    {
        if (listener == null)
        {
            engine.submit(operation);
        }
        else if (!buffer.isDevice() && packedBytes <= engine.eagerThresholdBytes())
        {
            engine.submitAlone(operation);
        }
        else
        {
            engine.enqueue(operation);
        }
    }

    private static void failAtOnce(final Request request, final Status failure)
    {
        if (request.complete(failure))
        {
            request.completeStage(failure);
        }
    }

    private void checkOpen()
    {
        if (engine.isClosed())
        {
            throw new StagecoachException(ErrorClass.COMM, "rank " + rank() + " closed its communicator");
        }
    }

    private void checkDestination(final int destination)
    {
        if (destination < 0 || destination >= size())
        {
            throw new InvalidArgumentException(ErrorClass.RANK,
                "destination rank " + destination + " is outside [0, " + size() + ")");
        }
    }

    private void checkSource(final int source)
    {
        if (source != ANY_SOURCE && (source < 0 || source >= size()))
        {
            throw new InvalidArgumentException(ErrorClass.RANK,
                "source rank " + source + " is outside [0, " + size() + ") and is not ANY_SOURCE (-1)");
        }
    }

    private static void checkTag(final int tag, final boolean wildcardAllowed)
    {
        if (tag < 0 && !(wildcardAllowed && tag == ANY_TAG))
        {
            throw new InvalidArgumentException(ErrorClass.TAG, "tag " + tag + " is negative" +
                (wildcardAllowed ? " and is not ANY_TAG (-1)" : " (only a receive may use ANY_TAG)"));
        }
    }

    private static CompiledType compiled(final Datatype type, final long count)
    {
        if (type == null)
        {
            throw new InvalidArgumentException(ErrorClass.TYPE, "datatype is null");
        }
        if (count < 0)
        {
            throw new InvalidArgumentException(ErrorClass.COUNT, "count " + count + " is negative");
        }
        return type.compiled();
    }

    private MessageBuffer resolve(
        final DataBuffer data,
        final CompiledType compiled,
        final long count,
        final Datatype type,
        final String role,
        final boolean writable)
    {
        final MessageBuffer buffer;
        if (data instanceof DataBuffer.Host host)
        {
            buffer = fromByteBuffer(requireBuffer(host.buffer(), role, "a ByteBuffer"), role, writable);
        }
        else if (data instanceof DataBuffer.Allocated allocated)
        {
            buffer = fromAllocation(requireBuffer(allocated.allocation(), role, "an Allocation"), role);
        }
        else if (data instanceof DataBuffer.Raw raw)
        {
            buffer = fromAddress(raw.address(), raw.capacityBytes(), role);
        }
        else
        {
            throw badBuffer(role + " buffer is null (a DataBuffer was expected)");
        }
        checkFits(buffer, compiled, count, type, role);
        return buffer;
    }

    private static <T> T requireBuffer(final T buffer, final String role, final String expected)
    {
        if (buffer == null)
        {
            throw badBuffer(role + " buffer is null (" + expected + " was expected)");
        }
        return buffer;
    }

    private static InvalidArgumentException badBuffer(final String message)
    {
        return new InvalidArgumentException(ErrorClass.BUFFER, message);
    }

    private static MessageBuffer fromByteBuffer(final ByteBuffer byteBuffer, final String role, final boolean writable)
    {
        if (!byteBuffer.isDirect())
        {
            throw badBuffer(role + " buffer must be a direct ByteBuffer, not a heap buffer of " +
                byteBuffer.capacity() + " bytes");
        }
        if (writable && byteBuffer.isReadOnly())
        {
            throw badBuffer(role + " buffer is read-only");
        }
        final long start = BufferUtil.address(byteBuffer);
        return new MessageBuffer(start + byteBuffer.position(), start, byteBuffer.limit(),
            MemoryRegion.PAGEABLE_HOST, byteBuffer);
    }

    private MessageBuffer fromAllocation(final Allocation allocation, final String role)
    {
        if (allocation.isFreed())
        {
            throw badBuffer(role + " buffer " + allocation + " was freed");
        }
        if (allocation.type() == MemoryType.DEVICE && deviceRuntime == null)
        {
            throw new StagecoachException(ErrorClass.BUFFER, role + " buffer " + allocation + " is device memory, " +
                "but no device runtime is configured (StagecoachContext.deviceRuntime)");
        }
        return new MessageBuffer(allocation.address(), allocation.address(), allocation.lengthBytes(),
            allocation.region(), allocation);
    }

    private MessageBuffer fromAddress(final long address, final long capacityBytes, final String role)
    {
        if (address == 0)
        {
            throw badBuffer(role + " buffer address is null (0)");
        }
        if (capacityBytes < 0)
        {
            throw badBuffer(role + " buffer capacity " + capacityBytes + " is negative");
        }
        // a buffer of no bytes (one past the end of an allocation, say) is never read or written: its kind is moot
        final MemoryRegion region = deviceRuntime == null || capacityBytes == 0 ? MemoryRegion.PAGEABLE_HOST :
            deviceRuntime.lookup(address);
        if (region.type() == MemoryType.DEVICE && region.lengthBytes() > 0 &&
            address + capacityBytes > region.endAddress())
        {
            throw badBuffer(role + " buffer of " + capacityBytes + " bytes at 0x" +
                Long.toHexString(address) + " runs past the end of its allocation, " + region);
        }
        return new MessageBuffer(address, address, capacityBytes, region, null);
    }

    private static void checkFits(
        final MessageBuffer buffer, final CompiledType compiled, final long count, final Datatype type,
        final String role)
    {
        final long lowBytes = compiled.dataLowBytes(count);
        final long highBytes = compiled.dataHighBytes(count);
        final long startOffset = buffer.baseAddress() - buffer.lowAddress();
        // compared without adding to the offset: a count near Long.MAX_VALUE must not wrap past the check
        if (highBytes > lowBytes && (lowBytes < -startOffset || highBytes > buffer.lengthBytes() - startOffset))
        {
            final long end = startOffset + highBytes;
            throw badBuffer(role + " buffer of " + buffer.lengthBytes() + " bytes is too small for " + count +
                " x " + type + ": the data spans bytes [" + (startOffset + lowBytes) + ", " +
                (highBytes >= 0 ? Long.toUnsignedString(end) : Long.toString(end)) + ") of it");
        }
    }
}
