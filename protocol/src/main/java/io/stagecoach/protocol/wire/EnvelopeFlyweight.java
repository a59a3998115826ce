package io.stagecoach.protocol.wire;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * A matchable message, {@link MessageType#EAGER} (payload follows) or {@link MessageType#RTS} (payload follows a
 * {@link MessageType#CTS}), after the {@link MessageHeaderFlyweight common header}:
 * <pre>
 *   16 context id (int)            20 tag (int)
 *   24 sequence (long)             per (source, destination), starts at 0, +1 for every matchable message
 *   32 transfer id (long)          the sender's id for this send, named by CTS, ACK and ERROR
 *   40 packed bytes (long)         size of the whole packed payload
 *   48 signature hash (long)       TypeSignature.encode: hash, length in elements, size in bytes
 *   56 signature length (long)
 *   64 signature size bytes (long)
 *   72 payload (EAGER only)        packed bytes [0, packed bytes)
 *   72 source pid (long)           RTS with {@link #FLAG_READABLE} only: the sender's process on this node
 *   80 source address (long)       ... and where its packed bytes lie there, contiguous, until it is told ACK;
 *                                  with {@link #FLAG_SHARED}, their offset in the sender's shared arena;
 *                                  with {@link #FLAG_DIRECT} too, the offset of the send buffer's description;
 *                                  with {@link #FLAG_DEVICE_IPC} instead, that of the device buffer's description
 * </pre>
 */
public final class EnvelopeFlyweight extends MessageHeaderFlyweight
{
    /** Length of the fixed part; an EAGER payload starts here. */
    public static final int HEADER_LENGTH = 72;
    /** Number of longs of the encoded type signature. */
    public static final int SIGNATURE_LONGS = 3;
    /** Flag: the sender wants an {@link MessageType#ACK} when the message is matched (synchronous mode). */
    public static final int FLAG_SYNC = 0x1;
    /**
     * Flag of an RTS from a rank on the same node: its packed bytes lie contiguous in its memory at
     * {@link #sourceAddress()} and the receiver may read them itself, then answer ACK instead of CTS.
     */
    public static final int FLAG_READABLE = 0x2;
    /**
     * Flag of a {@link #FLAG_READABLE} RTS whose packed bytes lie in the sender's shared arena, a file of the node's
     * shared-memory directory that the receiver maps: {@link #sourceAddress()} is their offset there.
     */
    public static final int FLAG_SHARED = 0x4;
    /**
     * Flag of a {@link #FLAG_SHARED} RTS whose bytes are not packed: the send buffer itself lies in the sender's shared
     * arena, and {@link #sourceAddress()} is the offset there of its description (where the buffer lies, the count
     * and the layout of the send type, {@code LayoutCodec}), which the receiver walks to copy the data straight out
     * of the buffer.
     */
    public static final int FLAG_DIRECT = 0x8;
    /**
     * Flag of a {@link #FLAG_READABLE} RTS of a large device message whose chunks the sender's stage pipeline packs,
     * one at a time, into slots of a region of its shared arena: {@link #sourceAddress()} names that region (offset
     * and length, {@link #slotRegion(long, long)}); the packed bytes are not there yet. A receiver of device memory
     * that maps the region answers a CTS with {@link ClearToSendFlyweight#FLAG_ARENA} and takes each chunk out of it
     * as a {@link MessageType#CHUNK} names it; any other receiver answers a plain CTS and gets DATA.
     */
    public static final int FLAG_ARENA_CHUNKS = 0x10;
    /**
     * Flag of a {@link #FLAG_SHARED} RTS of a device message: {@link #sourceAddress()} is the offset in the sender's
     * shared arena of its device buffer's description (the IPC handle of the buffer's range, where displacement 0
     * lies in it, the count and the layout of the send type). A receiver that opens the handle moves the message
     * itself, on its device, and answers ACK; one that cannot answers a plain CTS, and the sender's stage pipeline
     * packs the message then and streams it as DATA.
     */
    public static final int FLAG_DEVICE_IPC = 0x20;
    /** Length of a {@link #FLAG_READABLE} RTS. */
    public static final int READABLE_LENGTH = 88;

    /**
     * @param offset      of a slot region in the sender's shared arena, below 2^31.
     * @param lengthBytes of the region, below 2^31.
     * @return the {@link #sourceAddress()} of a {@link #FLAG_ARENA_CHUNKS} RTS: the offset in the high 32 bits, the
     * length in the low 32.
     */
    public static long slotRegion(final long offset, final long lengthBytes)
    {
        return offset << 32 | lengthBytes;
    }

    /**
     * @param sourceAddress of a {@link #FLAG_ARENA_CHUNKS} RTS.
     * @return the offset of the slot region in the sender's shared arena.
     */
    public static long slotRegionOffset(final long sourceAddress)
    {
        return sourceAddress >>> 32;
    }

    /**
     * @param sourceAddress of a {@link #FLAG_ARENA_CHUNKS} RTS.
     * @return the length of the slot region.
     */
    public static long slotRegionLength(final long sourceAddress)
    {
        return sourceAddress & 0xFFFF_FFFFL;
    }

    static final int CONTEXT_OFFSET = 16;
    static final int TAG_OFFSET = 20;
    static final int SEQUENCE_OFFSET = 24;
    static final int TRANSFER_OFFSET = 32;
    static final int PACKED_BYTES_OFFSET = 40;
    static final int SIGNATURE_OFFSET = 48;
    static final int SOURCE_PID_OFFSET = 72;
    static final int SOURCE_ADDRESS_OFFSET = 80;

    /**
     * {@inheritDoc}
     */
    public EnvelopeFlyweight wrap(final DirectBuffer buffer, final int offset)
    {
        super.wrap(buffer, offset);
        return this;
    }

    /**
     * {@inheritDoc}
     */
    public EnvelopeFlyweight wrap(final DirectBuffer buffer, final int offset, final int length)
    {
        super.wrap(buffer, offset, length);
        return this;
    }

    /**
     * @return the communicator's context id.
     */
    public int contextId()
    {
        return buffer.getInt(CONTEXT_OFFSET, ORDER);
    }

    /**
     * @param contextId the communicator's context id.
     * @return this.
     */
    public EnvelopeFlyweight contextId(final int contextId)
    {
        buffer.putInt(CONTEXT_OFFSET, contextId, ORDER);
        return this;
    }

    /**
     * @return the message tag, >= 0.
     */
    public int tag()
    {
        return buffer.getInt(TAG_OFFSET, ORDER);
    }

    /**
     * @param tag the message tag.
     * @return this.
     */
    public EnvelopeFlyweight tag(final int tag)
    {
        buffer.putInt(TAG_OFFSET, tag, ORDER);
        return this;
    }

    /**
     * @return the sequence number of this matchable message from its source to its destination.
     */
    public long sequence()
    {
        return buffer.getLong(SEQUENCE_OFFSET, ORDER);
    }

    /**
     * @param sequence the sequence number.
     * @return this.
     */
    public EnvelopeFlyweight sequence(final long sequence)
    {
        buffer.putLong(SEQUENCE_OFFSET, sequence, ORDER);
        return this;
    }

    /**
     * @return the sender's transfer id.
     */
    public long transferId()
    {
        return buffer.getLong(TRANSFER_OFFSET, ORDER);
    }

    /**
     * @param transferId the sender's transfer id.
     * @return this.
     */
    public EnvelopeFlyweight transferId(final long transferId)
    {
        buffer.putLong(TRANSFER_OFFSET, transferId, ORDER);
        return this;
    }

    /**
     * @return size in bytes of the whole packed payload.
     */
    public long packedBytes()
    {
        return buffer.getLong(PACKED_BYTES_OFFSET, ORDER);
    }

    /**
     * @param packedBytes size in bytes of the whole packed payload.
     * @return this.
     */
    public EnvelopeFlyweight packedBytes(final long packedBytes)
    {
        buffer.putLong(PACKED_BYTES_OFFSET, packedBytes, ORDER);
        return this;
    }

    /**
     * @param index in [0, {@link #SIGNATURE_LONGS}).
     * @return that long of the encoded type signature.
     */
    public long signature(final int index)
    {
        return buffer.getLong(SIGNATURE_OFFSET + checkSignatureIndex(index) * Long.BYTES, ORDER);
    }

    /**
     * @param dst    receives {@link #SIGNATURE_LONGS} longs.
     * @param offset index of the first.
     */
    public void getSignature(final long[] dst, final int offset)
    {
        for (int i = 0; i < SIGNATURE_LONGS; i++)
        {
            dst[offset + i] = buffer.getLong(SIGNATURE_OFFSET + i * Long.BYTES, ORDER);
        }
    }

    /**
     * @param src    {@link #SIGNATURE_LONGS} longs of an encoded type signature.
     * @param offset index of the first.
     * @return this.
     */
    public EnvelopeFlyweight putSignature(final long[] src, final int offset)
    {
        for (int i = 0; i < SIGNATURE_LONGS; i++)
        {
            buffer.putLong(SIGNATURE_OFFSET + i * Long.BYTES, src[offset + i], ORDER);
        }
        return this;
    }

    /**
     * Writes the encoded type signature from its three parts, as {@code TypeSignature.encode} lays them out.
     *
     * @param hash      hash of the basic-type sequence.
     * @param length    number of basic elements.
     * @param sizeBytes packed size in bytes.
     * @return this.
     */
    public EnvelopeFlyweight signature(final long hash, final long length, final long sizeBytes)
    {
        buffer.putLong(SIGNATURE_OFFSET, hash, ORDER);
        buffer.putLong(SIGNATURE_OFFSET + Long.BYTES, length, ORDER);
        buffer.putLong(SIGNATURE_OFFSET + 2 * Long.BYTES, sizeBytes, ORDER);
        return this;
    }

    /**
     * @return offset of the payload relative to the start of the message.
     */
    public int payloadOffset()
    {
        return HEADER_LENGTH;
    }

    /**
     * @return the buffer the flyweight wraps, for reading or writing the payload at {@link #payloadOffset()}.
     */
    public MutableDirectBuffer buffer()
    {
        return buffer;
    }

    /**
     * @return bytes the message occupies: the fixed part, plus the payload for EAGER.
     */
    public int encodedLength()
    {
        if (type() == MessageType.EAGER)
        {
            return HEADER_LENGTH + (int)packedBytes();
        }
        return (flags() & FLAG_READABLE) != 0 ? READABLE_LENGTH : HEADER_LENGTH;
    }

    private static int checkSignatureIndex(final int index)
    {
        if (index < 0 || index >= SIGNATURE_LONGS)
        {
            throw new IndexOutOfBoundsException("signature index " + index + " is outside [0, " +
                SIGNATURE_LONGS + ")");
        }
        return index;
    }
    /**
     * @return the sender's process id ({@link #FLAG_READABLE} RTS only).
     */
    public long sourcePid()
    {
        return buffer.getLong(SOURCE_PID_OFFSET, ORDER);
    }

    /**
     * @param pid the sender's process id.
     * @return this.
     */
    public EnvelopeFlyweight sourcePid(final long pid)
    {
        buffer.putLong(SOURCE_PID_OFFSET, pid, ORDER);
        return this;
    }

    /**
     * @return where the packed bytes lie in the sender's process ({@link #FLAG_READABLE} RTS only).
     */
    public long sourceAddress()
    {
        return buffer.getLong(SOURCE_ADDRESS_OFFSET, ORDER);
    }

    /**
     * @param address where the packed bytes lie in the sender's process.
     * @return this.
     */
    public EnvelopeFlyweight sourceAddress(final long address)
    {
        buffer.putLong(SOURCE_ADDRESS_OFFSET, address, ORDER);
        return this;
    }
}
