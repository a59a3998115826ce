package io.stagecoach.protocol.wire;

import org.agrona.DirectBuffer;

/**
 * {@link MessageType#IPC_RELEASE}: the sender freed a device allocation it had offered to the recipient over IPC, so
 * the recipient drops its mapping of that export (at once where no get reads it, when the last one ends otherwise).
 * The export number tells this allocation from a later one at the same address, whose RTS may arrive first. After the
 * {@link MessageHeaderFlyweight common header}:
 * <pre>
 *   16 allocation address in the sender's process (long)
 *   24 export number (long)   as the allocation's IPC handle carries it
 * </pre>
 */
public final class IpcReleaseFlyweight extends MessageHeaderFlyweight
{
    /** Length of an IPC_RELEASE message. */
    public static final int LENGTH = 32;

    static final int ALLOCATION_ADDRESS_OFFSET = 16;
    static final int EXPORT_NUMBER_OFFSET = 24;

    /**
     * {@inheritDoc}
     */
    public IpcReleaseFlyweight wrap(final DirectBuffer buffer, final int offset, final int length)
    {
        super.wrap(buffer, offset, length);
        return this;
    }

    /**
     * @return where the freed allocation started in the sender's process.
     */
    public long allocationAddress()
    {
        return buffer.getLong(ALLOCATION_ADDRESS_OFFSET, ORDER);
    }

    /**
     * @param allocationAddress where the freed allocation started in the sender's process.
     * @return this.
     */
    public IpcReleaseFlyweight allocationAddress(final long allocationAddress)
    {
        buffer.putLong(ALLOCATION_ADDRESS_OFFSET, allocationAddress, ORDER);
        return this;
    }

    /**
     * @return the number of the freed allocation's export.
     */
    public long exportNumber()
    {
        return buffer.getLong(EXPORT_NUMBER_OFFSET, ORDER);
    }

    /**
     * @param exportNumber the number of the freed allocation's export.
     * @return this.
     */
    public IpcReleaseFlyweight exportNumber(final long exportNumber)
    {
        buffer.putLong(EXPORT_NUMBER_OFFSET, exportNumber, ORDER);
        return this;
    }
}
