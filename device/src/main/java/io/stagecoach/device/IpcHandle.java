package io.stagecoach.device;

import java.util.Arrays;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * A range of device memory exported for another process on the same node: the driver's opaque handle of the
 * allocation plus where the range lies in it, and the exporter's number of the export, which no later allocation
 * shares (the driver may hand out equal opaque bytes for a new allocation at the address of a freed one: the number
 * keeps a peer from taking its mapping of the old one for the new). Travels on the wire as {@link #ENCODED_LENGTH}
 * bytes.
 */
public final class IpcHandle
{
    /**
     * Bytes of the driver's opaque handle (CUDA's {@code CU_IPC_HANDLE_SIZE}).
     */
    public static final int OPAQUE_BYTES = 64;

    /**
     * Bytes of the encoded form.
     */
    public static final int ENCODED_LENGTH = 128;

    private static final int MAGIC = 0x53434950;

    private final DeviceKind kind;
    private final int device;
    private final long processId;
    private final long allocationAddress;
    private final long allocationBytes;
    private final long offsetBytes;
    private final long lengthBytes;
    private final long exportNumber;
    private final byte[] opaque;

    IpcHandle(
        final DeviceKind kind,
        final int device,
        final long processId,
        final long allocationAddress,
        final long allocationBytes,
        final long offsetBytes,
        final long lengthBytes,
        final long exportNumber,
        final byte[] opaque)
    {
        if (opaque.length != OPAQUE_BYTES)
        {
            throw new IllegalArgumentException("opaque handle of " + opaque.length + " bytes, expected " + OPAQUE_BYTES);
        }
        this.kind = kind;
        this.device = device;
        this.processId = processId;
        this.allocationAddress = allocationAddress;
        this.allocationBytes = allocationBytes;
        this.offsetBytes = offsetBytes;
        this.lengthBytes = lengthBytes;
        this.exportNumber = exportNumber;
        this.opaque = opaque.clone();
    }

    /**
     * @return the back end that exported the memory.
     */
    public DeviceKind kind()
    {
        return kind;
    }

    /**
     * @return device ordinal in the exporting process.
     */
    public int device()
    {
        return device;
    }

    /**
     * @return process id of the exporter.
     */
    public long processId()
    {
        return processId;
    }

    /**
     * @return address of the whole allocation in the exporter.
     */
    public long allocationAddress()
    {
        return allocationAddress;
    }

    /**
     * @return length of the whole allocation.
     */
    public long allocationBytes()
    {
        return allocationBytes;
    }

    /**
     * @return where the exported range starts inside the allocation.
     */
    public long offsetBytes()
    {
        return offsetBytes;
    }

    /**
     * @return length of the exported range.
     */
    public long lengthBytes()
    {
        return lengthBytes;
    }

    /**
     * @return the exporter's number of this export of the allocation, unique in its process.
     */
    public long exportNumber()
    {
        return exportNumber;
    }

    byte[] opaque()
    {
        return opaque.clone();
    }

    boolean sameAllocation(final IpcHandle other)
    {
        return kind == other.kind && processId == other.processId && exportNumber == other.exportNumber &&
            Arrays.equals(opaque, other.opaque);
    }

    /**
     * @param buffer to write to.
     * @param offset where the {@link #ENCODED_LENGTH} bytes start.
     */
    public void encode(final MutableDirectBuffer buffer, final int offset)
    {
        buffer.setMemory(offset, ENCODED_LENGTH, (byte)0);
        buffer.putInt(offset, MAGIC);
        buffer.putByte(offset + 4, (byte)kind.ordinal());
        buffer.putInt(offset + 8, device);
        buffer.putLong(offset + 16, processId);
        buffer.putLong(offset + 24, allocationAddress);
        buffer.putLong(offset + 32, allocationBytes);
        buffer.putLong(offset + 40, offsetBytes);
        buffer.putLong(offset + 48, lengthBytes);
        buffer.putLong(offset + 56, exportNumber);
        buffer.putBytes(offset + 64, opaque);
    }

    /**
     * @return the encoded form.
     */
    public byte[] toBytes()
    {
        final byte[] bytes = new byte[ENCODED_LENGTH];
        encode(new UnsafeBuffer(bytes), 0);
        return bytes;
    }

    /**
     * @param buffer to read from.
     * @param offset where the encoded handle starts.
     * @return the handle.
     */
    public static IpcHandle decode(final DirectBuffer buffer, final int offset)
    {
        final int magic = buffer.getInt(offset);
        if (magic != MAGIC)
        {
            throw new IllegalArgumentException("not an IPC handle: magic 0x" + Integer.toHexString(magic) +
                ", expected 0x" + Integer.toHexString(MAGIC));
        }
        final int kindOrdinal = buffer.getByte(offset + 4);
        if (kindOrdinal < 0 || kindOrdinal >= DeviceKind.values().length)
        {
            throw new IllegalArgumentException("IPC handle of unknown device kind " + kindOrdinal);
        }
        final byte[] opaque = new byte[OPAQUE_BYTES];
        buffer.getBytes(offset + 64, opaque);
        return new IpcHandle(
            DeviceKind.values()[kindOrdinal],
            buffer.getInt(offset + 8),
            buffer.getLong(offset + 16),
            buffer.getLong(offset + 24),
            buffer.getLong(offset + 32),
            buffer.getLong(offset + 40),
            buffer.getLong(offset + 48),
            buffer.getLong(offset + 56),
            opaque);
    }

    /**
     * @param bytes the encoded form.
     * @return the handle.
     */
    public static IpcHandle fromBytes(final byte[] bytes)
    {
        if (bytes.length != ENCODED_LENGTH)
        {
            throw new IllegalArgumentException("IPC handle of " + bytes.length + " bytes, expected " + ENCODED_LENGTH);
        }
        return decode(new UnsafeBuffer(bytes), 0);
    }

    @Override
    public String toString()
    {
        return "IpcHandle{" + kind + " device " + device + " of process " + processId + ", " + lengthBytes +
            " bytes at offset " + offsetBytes + " of allocation 0x" + Long.toHexString(allocationAddress) + " of " +
            allocationBytes + " bytes, export " + exportNumber + "}";
    }
}
