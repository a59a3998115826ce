package io.stagecoach.pipeline;

import java.util.concurrent.CompletionStage;

import io.stagecoach.protocol.datatype.CompiledType;

/**
 * How the packed bytes of a message in device memory reach host memory that the transport reads, and how packed
 * bytes that arrived in host memory reach a device buffer: the seam between the rank runtime's protocol engine and
 * the device data path.
 * <p>
 * This milestone stages a whole message at a time ({@link io.stagecoach.pipeline.stage.WholeMessageStaging}): pack
 * on the device into pinned host memory, send from there; receive into pinned host memory, unpack on the device
 * from there. The pipelined stage actors (pack, device-to-host, wire, host-to-device, unpack over chunks, each chunk
 * in a different stage) implement the same contract chunk by chunk.
 * <p>
 * The asynchronous methods are called from the rank's actor or progress thread and never block: completions arrive
 * on a device thread through the returned stages. The {@code Now} methods are for messages small enough that a
 * hand-off to another thread would cost more than the device work: they stage on the calling thread, polling the
 * device's completion, and return once the data is where it belongs.
 */
public interface StagingPath extends AutoCloseable
{
    /**
     * Host memory to receive {@code packedBytes} of an incoming message bound for device memory.
     *
     * @param packedBytes size of the message's packed stream.
     * @return the memory; released by {@link #unpackToDevice} or by the caller when the receive fails.
     */
    PackedHostBuffer allocate(long packedBytes);

    /**
     * Packs {@code count} instances of a datatype in device memory into new host memory.
     *
     * @param deviceAddress displacement 0 of the typed buffer.
     * @param device        ordinal of the device that holds it.
     * @param count         instances.
     * @param type          compiled form of the datatype.
     * @param packedBytes   {@code count * type.size()}.
     * @return completes with the packed bytes, which the caller releases once sent.
     */
    CompletionStage<PackedHostBuffer> packToHost(
        long deviceAddress, int device, long count, CompiledType type, long packedBytes);

    /**
     * Unpacks the first {@code lengthBytes} of a packed stream in host memory into device memory, then releases
     * the host memory (whether or not the unpack succeeded).
     *
     * @param packed        the packed bytes.
     * @param lengthBytes   bytes of it that arrived.
     * @param deviceAddress displacement 0 of the typed buffer.
     * @param device        ordinal of the device that holds it.
     * @param count         instances the typed buffer holds.
     * @param type          compiled form of the datatype.
     * @return completes once the data is in device memory.
     */
    CompletionStage<Void> unpackToDevice(
        PackedHostBuffer packed, long lengthBytes, long deviceAddress, int device, long count, CompiledType type);

    /**
     * Packs {@code count} instances of a datatype in device memory into new host memory on the calling thread,
     * polling the device until the packed bytes are in host memory.
     *
     * @param deviceAddress displacement 0 of the typed buffer.
     * @param device        ordinal of the device that holds it.
     * @param count         instances.
     * @param type          compiled form of the datatype.
     * @param packedBytes   {@code count * type.size()}.
     * @return the packed bytes, which the caller releases once sent.
     * @throws RuntimeException when the device fails or does not finish within the path's timeout.
     */
    PackedHostBuffer packToHostNow(long deviceAddress, int device, long count, CompiledType type, long packedBytes);

    /**
     * Unpacks the first {@code lengthBytes} of a packed stream in host memory into device memory on the calling
     * thread, polling the device until the data is in device memory, then releases the host memory (whether or not
     * the unpack succeeded).
     *
     * @param packed        the packed bytes.
     * @param lengthBytes   bytes of it that arrived.
     * @param deviceAddress displacement 0 of the typed buffer.
     * @param device        ordinal of the device that holds it.
     * @param count         instances the typed buffer holds.
     * @param type          compiled form of the datatype.
     * @throws RuntimeException when the device fails or does not finish within the path's timeout.
     */
    void unpackToDeviceNow(
        PackedHostBuffer packed, long lengthBytes, long deviceAddress, int device, long count, CompiledType type);

    /**
     * Releases streams and events; memory handed out stays valid until released.
     */
    void close();
}
