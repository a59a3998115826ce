package io.stagecoach.protocol.datatype;

/**
 * The predefined element types a type map is made of. Each is naturally aligned to its size.
 */
public enum BasicType
{
    /** One byte, MPI_BYTE. */
    BYTE(1),
    /** A Java char, two bytes. */
    CHAR(2),
    /** A Java short. */
    SHORT(2),
    /** A Java int. */
    INT(4),
    /** A Java long. */
    LONG(8),
    /** A Java float. */
    FLOAT(4),
    /** A Java double. */
    DOUBLE(8),
    /** A Java boolean stored as one byte. */
    BOOLEAN(1),
    /** A byte of a packed stream, MPI_PACKED. */
    PACKED(1);

    private static final BasicType[] VALUES = values();

    private final int sizeBytes;

    BasicType(final int sizeBytes)
    {
        this.sizeBytes = sizeBytes;
    }

    /**
     * @return size of one element in bytes.
     */
    public int sizeBytes()
    {
        return sizeBytes;
    }

    /**
     * @return alignment of one element in bytes, equal to its size.
     */
    public int alignmentBytes()
    {
        return sizeBytes;
    }

    static BasicType of(final int ordinal)
    {
        return VALUES[ordinal];
    }
}
