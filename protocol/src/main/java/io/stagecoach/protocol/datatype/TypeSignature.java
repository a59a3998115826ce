package io.stagecoach.protocol.datatype;

import io.stagecoach.protocol.ErrorClass;

/**
 * The type signature of a message: the sequence of basic types of its type map, kept compact as a 61-bit
 * polynomial hash of that sequence (modulo 2^61-1), its length in basic elements and its packed size in bytes.
 * A signature made from a datatype also holds the run-length form of the sequence, of a size proportional to the
 * datatype's description, from which {@link #prefix(long)} and {@link #repeat(long)} are computed without
 * expanding the sequence. A {@link #decode(long[], int) decoded} signature has only hash, length and size: it can
 * be compared but not cut.
 * <p>
 * Two signatures are equal when hash, length and size are equal; equal sequences always give equal signatures
 * however the datatypes were built (a {@code contiguous(2, INT)} equals a {@code struct} of two ints).
 */
public final class TypeSignature
{
    /**
     * Number of longs written by {@link #encode(long[], int)}.
     */
    public static final int ENCODED_LONGS = 3;

    private final long hash;
    private final long length;
    private final long sizeBytes;
    private final SignatureNode form;

    TypeSignature(final SignatureNode form)
    {
        this(form.hash, form.length, form.sizeBytes, form);
    }

    private TypeSignature(final long hash, final long length, final long sizeBytes, final SignatureNode form)
    {
        this.hash = hash;
        this.length = length;
        this.sizeBytes = sizeBytes;
        this.form = form;
    }

    /**
     * Receives the runs of a signature in order: adjacent runs always differ in type.
     */
    @FunctionalInterface
    public interface RunConsumer
    {
        /**
         * @param type  the basic type of the run.
         * @param count number of consecutive elements of that type.
         */
        void accept(BasicType type, long count);
    }

    /**
     * @return the hash of the basic-type sequence, in [0, 2^61-1).
     */
    public long hash()
    {
        return hash;
    }

    /**
     * @return number of basic elements.
     */
    public long length()
    {
        return length;
    }

    /**
     * @return packed size in bytes of the sequence.
     */
    public long sizeBytes()
    {
        return sizeBytes;
    }

    /**
     * @return whether the run-length form is present (false for a decoded signature).
     */
    public boolean hasRunLengthForm()
    {
        return form != null;
    }

    /**
     * @param count number of repetitions, >= 0.
     * @return the signature of {@code count} consecutive copies of this sequence.
     */
    public TypeSignature repeat(final long count)
    {
        return new TypeSignature(SignatureNode.repeat(count, requireForm("repeat")));
    }

    /**
     * @param n number of leading basic elements, in [0, length()].
     * @return the signature of the first {@code n} basic elements.
     */
    public TypeSignature prefix(final long n)
    {
        if (n < 0 || n > length)
        {
            throw new DatatypeException(ErrorClass.COUNT,
                "prefix length " + n + " is outside [0, " + length + "] of " + this);
        }
        return new TypeSignature(requireForm("prefix").prefix(n));
    }

    /**
     * @param other a signature with a run-length form, the one a receiver expects.
     * @return whether this signature is the signature of the first {@link #length()} elements of {@code other}.
     */
    public boolean isPrefixOf(final TypeSignature other)
    {
        return length <= other.length && other.prefix(length).equals(this);
    }

    /**
     * @param consumer receives the maximal runs of equal basic types, in order. Expands the sequence, so the
     *                 number of calls is up to the number of runs, not the size of the description.
     */
    public void forEachRun(final RunConsumer consumer)
    {
        final SignatureNode.RunMerger merger = new SignatureNode.RunMerger();
        requireForm("forEachRun").forEachRun(consumer, merger);
        merger.flush(consumer);
    }

    /**
     * @param dst    destination, receives {@link #ENCODED_LONGS} longs: hash, length, size in bytes.
     * @param offset index of the first long.
     */
    public void encode(final long[] dst, final int offset)
    {
        dst[offset] = hash;
        dst[offset + 1] = length;
        dst[offset + 2] = sizeBytes;
    }

    /**
     * @return a new array of {@link #ENCODED_LONGS} longs.
     */
    public long[] encode()
    {
        final long[] words = new long[ENCODED_LONGS];
        encode(words, 0);
        return words;
    }

    /**
     * @param src    encoded signature.
     * @param offset index of the first long.
     * @return a signature without run-length form.
     */
    public static TypeSignature decode(final long[] src, final int offset)
    {
        final long hash = src[offset];
        final long length = src[offset + 1];
        final long sizeBytes = src[offset + 2];
        if (hash < 0 || hash >= SignatureNode.MODULUS || length < 0 || sizeBytes < length)
        {
            throw new DatatypeException(ErrorClass.ARG,
                "encoded signature is invalid: hash=" + hash + ", length=" + length +
                ", sizeBytes=" + sizeBytes + " (hash must be in [0, 2^61-1), 0 <= length <= sizeBytes)");
        }
        return new TypeSignature(hash, length, sizeBytes, null);
    }

    public boolean equals(final Object other)
    {
        if (!(other instanceof TypeSignature))
        {
            return false;
        }
        final TypeSignature that = (TypeSignature)other;
        return hash == that.hash && length == that.length && sizeBytes == that.sizeBytes;
    }

    public int hashCode()
    {
        return Long.hashCode(hash * 31 + length);
    }

    public String toString()
    {
        return "TypeSignature{hash=0x" + Long.toHexString(hash) + ", length=" + length + ", sizeBytes=" + sizeBytes +
            (form == null ? "" : ", runs=[" + abbreviate(form.toString()) + "]") + "}";
    }

    SignatureNode form()
    {
        return form;
    }

    private SignatureNode requireForm(final String operation)
    {
        if (form == null)
        {
            throw new DatatypeException(ErrorClass.ARG,
                operation + " needs the run-length form, which a decoded signature " +
                "lacks: " + this);
        }
        return form;
    }

    private static String abbreviate(final String text)
    {
        return text.length() <= 200 ? text : text.substring(0, 200) + "...";
    }
}
