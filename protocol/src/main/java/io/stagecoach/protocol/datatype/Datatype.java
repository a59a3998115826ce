package io.stagecoach.protocol.datatype;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

import io.stagecoach.protocol.ErrorClass;

/**
 * An MPI derived datatype: a type map of basic elements at byte displacements, with MPI 3.1 / 4.0 constructors,
 * bounds, signatures and the commit that compiles it for packing.
 * <p>
 * <b>Bounds.</b> {@link #lb()}, {@link #ub()} and {@link #extent()} follow MPI 3.1 section 4.1 for every
 * constructor: without explicit markers lb is the lowest byte of the basic elements of the type map and ub the
 * highest end of one plus epsilon, the least increment that rounds the extent up to a multiple of the largest
 * alignment of the basic types in the map, each basic type being aligned to its own size (CHAR and SHORT to 2,
 * INT and FLOAT to 4, LONG and DOUBLE to 8). So {@code hvector(2, 1, -12, DOUBLE)} spans bytes [-12, 8) and has
 * extent 24, and {@code hvector(2, 1, 3, INT)} has extent 8. {@link #resized(long, long)} sets explicit markers,
 * which every constructor inherits from its components (the lowest lb marker and highest ub marker of the copies
 * win, unmarked copies no longer count, and no epsilon is added). The true bounds ignore markers and epsilon.
 * <p>
 * <b>Alignment padding elsewhere.</b> The epsilon is implementation-defined. Open MPI adds it in every
 * constructor, as here, though from the bounds of the components rather than from the elements. MPICH adds it in
 * struct only: there {@code hvector(2, 1, -12, DOUBLE)} has extent 20. A program that moves data between the
 * three and relies on the extent of a type whose elements do not end on its alignment should set the extent it
 * means with {@link #resized(long, long)}.
 * <p>
 * <b>Lifecycle.</b> A constructed type must be {@link #commit() committed} before it is {@link #compiled()
 * compiled} for packing; it may be used in other constructors uncommitted. After {@link #free()} every query and
 * every use throws {@link DatatypeException}; types built from it earlier are unaffected. The predefined types are
 * committed and cannot be freed. Constructors throw {@link DatatypeException} naming the bad argument and its
 * limit, with the MPI error class of the mistake: {@link ErrorClass#COUNT} for a negative count,
 * {@link ErrorClass#ARG} for another bad argument, {@link ErrorClass#TYPE} for a null or freed oldtype,
 * {@link ErrorClass#VALUE_TOO_LARGE} for a size or extent beyond the long limit.
 */
public final class Datatype
{
    /**
     * Returned by {@link #countOf(long)} and {@link #elementsOf(long)} when the bytes are not a whole number of
     * instances or basic elements (MPI_UNDEFINED).
     */
    public static final long UNDEFINED = -1;

    /**
     * The default distribution argument of {@link #darray} (MPI_DISTRIBUTE_DFLT_DARG).
     */
    public static final int DISTRIBUTE_DFLT_DARG = Integer.MIN_VALUE;

    /** One byte. */
    public static final Datatype BYTE = predefined(BasicType.BYTE);
    /** A Java char, 2 bytes. */
    public static final Datatype CHAR = predefined(BasicType.CHAR);
    /** A Java short, 2 bytes. */
    public static final Datatype SHORT = predefined(BasicType.SHORT);
    /** A Java int, 4 bytes. */
    public static final Datatype INT = predefined(BasicType.INT);
    /** A Java long, 8 bytes. */
    public static final Datatype LONG = predefined(BasicType.LONG);
    /** A Java float, 4 bytes. */
    public static final Datatype FLOAT = predefined(BasicType.FLOAT);
    /** A Java double, 8 bytes. */
    public static final Datatype DOUBLE = predefined(BasicType.DOUBLE);
    /** A Java boolean stored as 1 byte. */
    public static final Datatype BOOLEAN = predefined(BasicType.BOOLEAN);
    /** A byte of a packed stream, 1 byte. */
    public static final Datatype PACKED = predefined(BasicType.PACKED);

    @FunctionalInterface
    interface LayoutSource
    {
        Node build();
    }

    private final String description;
    private final boolean predefined;
    private final long lb;
    private final long ub;
    private final long trueLb;
    private final long trueUb;
    private final boolean explicitBounds;
    private final int basicAlignment;
    private final SignatureNode signature;
    private final LayoutSource layoutSource;
    private Node layout;
    private boolean layoutBuilt;
    private volatile CompiledType compiled;
    private volatile boolean freed;

    private Datatype(final String description, final boolean predefined, final Bounds bounds,
        final SignatureNode signature, final LayoutSource layoutSource)
    {
        this.description = description;
        this.predefined = predefined;
        this.lb = bounds.lb;
        this.ub = bounds.ub;
        this.trueLb = bounds.trueLb;
        this.trueUb = bounds.trueUb;
        this.explicitBounds = bounds.explicit;
        this.basicAlignment = bounds.alignmentBytes;
        this.signature = signature;
        this.layoutSource = layoutSource;
    }

    private static Datatype predefined(final BasicType type)
    {
        final Bounds bounds = new Bounds();
        bounds.ub = type.sizeBytes();
        bounds.trueUb = type.sizeBytes();
        bounds.alignmentBytes = type.alignmentBytes();
        final Datatype datatype = new Datatype(type.name(), true, bounds, SignatureNode.run(type, 1),
            () -> Layouts.block(0, type.sizeBytes()));
        return datatype.commit();
    }

    /**
     * MPI_TYPE_CONTIGUOUS (and MPI_TYPE_CONTIGUOUS_C): {@code count} copies of {@code oldtype}, each
     * {@code oldtype.extent()} after the last.
     *
     * @param count   number of copies, >= 0.
     * @param oldtype the element type.
     * @return a new, uncommitted datatype.
     */
    public static Datatype contiguous(final long count, final Datatype oldtype)
    {
        nonNegative(count, "count", "contiguous", ErrorClass.COUNT);
        final long extent = live(oldtype, "contiguous").extentUnchecked();
        final String description = "contiguous(" + count + ", " + oldtype + ")";
        Checked.multiply(count, oldtype.sizeUnchecked(), "size in bytes of " + description);
        final Bounds bounds = new Bounds();
        bounds.add(0, oldtype, count, extent, 1, 0);
        return new Datatype(description, false, bounds.finish(),
            SignatureNode.repeat(count, oldtype.signature),
            () -> Layouts.vector(0, count, extent, oldtype.layout()));
    }

    /**
     * MPI_TYPE_VECTOR (and MPI_TYPE_VECTOR_C): {@code count} blocks of {@code blockLength} elements, block starts
     * {@code stride} elements (of {@code oldtype.extent()} bytes) apart; the stride may be negative or zero.
     *
     * @param count       number of blocks, >= 0.
     * @param blockLength elements per block, >= 0.
     * @param stride      distance between block starts in elements.
     * @param oldtype     the element type.
     * @return a new, uncommitted datatype.
     */
    public static Datatype vector(final long count, final long blockLength, final long stride,
        final Datatype oldtype)
    {
        final long extent = live(oldtype, "vector").extentUnchecked();
        final long strideBytes = Checked.multiply(stride, extent, "vector stride in bytes");
        return strided("vector(" + count + ", " + blockLength + ", " + stride + ", " + oldtype + ")",
            count, blockLength, strideBytes, oldtype);
    }

    /**
     * MPI_TYPE_CREATE_HVECTOR (and its _C form): as {@link #vector} with the stride in bytes.
     *
     * @param count       number of blocks, >= 0.
     * @param blockLength elements per block, >= 0.
     * @param strideBytes distance between block starts in bytes.
     * @param oldtype     the element type.
     * @return a new, uncommitted datatype.
     */
    public static Datatype hvector(final long count, final long blockLength, final long strideBytes,
        final Datatype oldtype)
    {
        live(oldtype, "hvector");
        return strided("hvector(" + count + ", " + blockLength + ", " + strideBytes + "B, " + oldtype + ")",
            count, blockLength, strideBytes, oldtype);
    }

    /**
     * MPI_TYPE_INDEXED: block i holds {@code blockLengths[i]} elements and starts {@code displacements[i]}
     * elements (of {@code oldtype.extent()} bytes) from the origin; displacements may be negative and unordered.
     *
     * @param blockLengths  elements per block, each >= 0.
     * @param displacements block starts in elements, as many as blockLengths.
     * @param oldtype       the element type.
     * @return a new, uncommitted datatype.
     */
    public static Datatype indexed(final int[] blockLengths, final int[] displacements, final Datatype oldtype)
    {
        return indexed(widen(blockLengths), widen(displacements), oldtype);
    }

    /**
     * MPI_TYPE_INDEXED_C: {@link #indexed(int[], int[], Datatype)} with block lengths and displacements beyond
     * the int range.
     *
     * @param blockLengths  elements per block, each >= 0.
     * @param displacements block starts in elements, as many as blockLengths.
     * @param oldtype       the element type.
     * @return a new, uncommitted datatype.
     */
    public static Datatype indexed(final long[] blockLengths, final long[] displacements, final Datatype oldtype)
    {
        final long extent = live(oldtype, "indexed").extentUnchecked();
        sameLength(blockLengths, displacements == null ? -1 : displacements.length, "indexed");
        final long[] bytes = new long[displacements.length];
        for (int i = 0; i < bytes.length; i++)
        {
            bytes[i] = Checked.multiply(displacements[i], extent, "indexed displacement " + i + " in bytes");
        }
        return blocks("indexed(" + text(blockLengths) + ", " + text(displacements) + ", " + oldtype + ")",
            blockLengths.clone(), bytes, oldtype);
    }

    /**
     * MPI_TYPE_CREATE_HINDEXED: as {@link #indexed} with displacements in bytes.
     *
     * @param blockLengths       elements per block, each >= 0.
     * @param displacementsBytes block starts in bytes, as many as blockLengths.
     * @param oldtype            the element type.
     * @return a new, uncommitted datatype.
     */
    public static Datatype hindexed(final int[] blockLengths, final long[] displacementsBytes,
        final Datatype oldtype)
    {
        return hindexed(widen(blockLengths), displacementsBytes, oldtype);
    }

    /**
     * MPI_TYPE_CREATE_HINDEXED_C: {@link #hindexed(int[], long[], Datatype)} with block lengths beyond the int
     * range.
     *
     * @param blockLengths       elements per block, each >= 0.
     * @param displacementsBytes block starts in bytes, as many as blockLengths.
     * @param oldtype            the element type.
     * @return a new, uncommitted datatype.
     */
    public static Datatype hindexed(final long[] blockLengths, final long[] displacementsBytes,
        final Datatype oldtype)
    {
        live(oldtype, "hindexed");
        sameLength(blockLengths, displacementsBytes == null ? -1 : displacementsBytes.length, "hindexed");
        return blocks("hindexed(" + text(blockLengths) + ", " + text(displacementsBytes) + "B, " + oldtype + ")",
            blockLengths.clone(), displacementsBytes.clone(), oldtype);
    }

    /**
     * MPI_TYPE_CREATE_INDEXED_BLOCK: as {@link #indexed} with one block length for every block.
     *
     * @param blockLength   elements per block, >= 0.
     * @param displacements block starts in elements.
     * @param oldtype       the element type.
     * @return a new, uncommitted datatype.
     */
    public static Datatype indexedBlock(final long blockLength, final int[] displacements, final Datatype oldtype)
    {
        return indexedBlock(blockLength, widen(displacements), oldtype);
    }

    /**
     * MPI_TYPE_CREATE_INDEXED_BLOCK_C: {@link #indexedBlock(long, int[], Datatype)} with displacements beyond the
     * int range.
     *
     * @param blockLength   elements per block, >= 0.
     * @param displacements block starts in elements.
     * @param oldtype       the element type.
     * @return a new, uncommitted datatype.
     */
    public static Datatype indexedBlock(final long blockLength, final long[] displacements, final Datatype oldtype)
    {
        final long extent = live(oldtype, "indexedBlock").extentUnchecked();
        nonNegative(blockLength, "blockLength", "indexedBlock", ErrorClass.ARG);
        Objects.requireNonNull(displacements, "displacements");
        final long[] bytes = new long[displacements.length];
        for (int i = 0; i < bytes.length; i++)
        {
            bytes[i] = Checked.multiply(displacements[i], extent, "indexedBlock displacement " + i + " in bytes");
        }
        return blocks("indexedBlock(" + blockLength + ", " + text(displacements) + ", " + oldtype + ")",
            filled(displacements.length, blockLength), bytes, oldtype);
    }

    /**
     * MPI_TYPE_CREATE_HINDEXED_BLOCK (and its _C form): as {@link #indexedBlock} with displacements in bytes.
     *
     * @param blockLength        elements per block, >= 0.
     * @param displacementsBytes block starts in bytes.
     * @param oldtype            the element type.
     * @return a new, uncommitted datatype.
     */
    public static Datatype hindexedBlock(final long blockLength, final long[] displacementsBytes,
        final Datatype oldtype)
    {
        live(oldtype, "hindexedBlock");
        nonNegative(blockLength, "blockLength", "hindexedBlock", ErrorClass.ARG);
        Objects.requireNonNull(displacementsBytes, "displacementsBytes");
        return blocks("hindexedBlock(" + blockLength + ", " + text(displacementsBytes) + "B, " + oldtype + ")",
            filled(displacementsBytes.length, blockLength), displacementsBytes.clone(), oldtype);
    }

    /**
     * MPI_TYPE_CREATE_STRUCT: block i holds {@code blockLengths[i]} elements of {@code types[i]} starting at
     * {@code displacementsBytes[i]}. Without explicit markers in the components the extent is padded to a multiple
     * of the largest basic alignment, as in every constructor (see the class comment).
     *
     * @param blockLengths       elements per block, each >= 0.
     * @param displacementsBytes block starts in bytes.
     * @param types              element type of each block.
     * @return a new, uncommitted datatype.
     */
    public static Datatype struct(final int[] blockLengths, final long[] displacementsBytes, final Datatype[] types)
    {
        return struct(widen(blockLengths), displacementsBytes, types);
    }

    /**
     * MPI_TYPE_CREATE_STRUCT_C: {@link #struct(int[], long[], Datatype[])} with block lengths beyond the int
     * range.
     *
     * @param blockLengths       elements per block, each >= 0.
     * @param displacementsBytes block starts in bytes.
     * @param types              element type of each block.
     * @return a new, uncommitted datatype.
     */
    public static Datatype struct(final long[] blockLengths, final long[] displacementsBytes, final Datatype[] types)
    {
        Objects.requireNonNull(types, "types");
        sameLength(blockLengths, displacementsBytes == null ? -1 : displacementsBytes.length, "struct");
        sameLength(blockLengths, types.length, "struct");
        final long[] lengths = blockLengths.clone();
        final long[] displacements = displacementsBytes.clone();
        final Datatype[] parts = types.clone();
        final Bounds bounds = new Bounds();
        final List<SignatureNode> signatures = new ArrayList<>(parts.length);
        for (int i = 0; i < parts.length; i++)
        {
            nonNegative(lengths[i], "blockLengths[" + i + "]", "struct", ErrorClass.ARG);
            live(parts[i], "struct types[" + i + "]");
            bounds.add(displacements[i], parts[i], lengths[i], parts[i].extentUnchecked(), 1, 0);
            signatures.add(SignatureNode.repeat(lengths[i], parts[i].signature));
        }
        return new Datatype("struct(" + text(lengths) + ", " + text(displacements) + "B, " +
            abbreviate(Arrays.toString(parts)) + ")", false, bounds.finish(), SignatureNode.sequence(signatures),
            () ->
            {
                final List<Node> nodes = new ArrayList<>(parts.length);
                for (int i = 0; i < parts.length; i++)
                {
                    nodes.add(Layouts.vector(displacements[i], lengths[i], parts[i].extentUnchecked(),
                        parts[i].layout()));
                }
                return Layouts.sequence(nodes);
            });
    }

    /**
     * MPI_TYPE_CREATE_SUBARRAY: the sub-block {@code [starts, starts + subsizes)} of an array of {@code sizes}
     * elements stored in {@code order}. Its lb is 0 and its extent the whole array, {@code product(sizes) *
     * oldtype.extent()}.
     *
     * @param sizes    elements per dimension of the whole array, each >= 1.
     * @param subsizes elements per dimension of the sub-block, each in [1, sizes[i]].
     * @param starts   first element of the sub-block per dimension, each in [0, sizes[i] - subsizes[i]].
     * @param order    storage order.
     * @param oldtype  the element type.
     * @return a new, uncommitted datatype.
     */
    public static Datatype subarray(final int[] sizes, final int[] subsizes, final int[] starts, final Order order,
        final Datatype oldtype)
    {
        return subarray(widen(sizes), widen(subsizes), widen(starts), order, oldtype);
    }

    /**
     * MPI_TYPE_CREATE_SUBARRAY_C: {@link #subarray(int[], int[], int[], Order, Datatype)} with sizes and starts
     * beyond the int range.
     *
     * @param sizes    elements per dimension of the whole array, each >= 1.
     * @param subsizes elements per dimension of the sub-block, each in [1, sizes[i]].
     * @param starts   first element of the sub-block per dimension, each in [0, sizes[i] - subsizes[i]].
     * @param order    storage order.
     * @param oldtype  the element type.
     * @return a new, uncommitted datatype.
     */
    public static Datatype subarray(final long[] sizes, final long[] subsizes, final long[] starts,
        final Order order, final Datatype oldtype)
    {
        return ArrayTypes.subarray(sizes, subsizes, starts, order, live(oldtype, "subarray"));
    }

    /**
     * MPI_TYPE_CREATE_DARRAY: the part of a global array of {@code gsizes} elements that process {@code rank} of a
     * row-major process grid of {@code psizes} owns, per MPI 4.0: each dimension is distributed BLOCK (blocks of
     * {@code dargs[i]} or {@code ceil(gsizes[i] / psizes[i])} elements), CYCLIC (cyclic(k) with k =
     * {@code dargs[i]}, or 1) or NONE. Its lb is 0 and its extent the global array, {@code product(gsizes) *
     * oldtype.extent()}.
     *
     * @param size          number of processes; must equal the product of psizes.
     * @param rank          this process, in [0, size).
     * @param gsizes        elements per dimension of the global array, each >= 1.
     * @param distributions distribution per dimension.
     * @param dargs         distribution argument per dimension, >= 1 or {@link #DISTRIBUTE_DFLT_DARG}.
     * @param psizes        processes per dimension, each >= 1 (1 for NONE).
     * @param order         storage order.
     * @param oldtype       the element type.
     * @return a new, uncommitted datatype.
     */
    public static Datatype darray(final int size, final int rank, final int[] gsizes,
        final Distribution[] distributions, final int[] dargs, final int[] psizes, final Order order,
        final Datatype oldtype)
    {
        return darray(size, rank, widen(gsizes), distributions, dargs, psizes, order, oldtype);
    }

    /**
     * MPI_TYPE_CREATE_DARRAY_C: {@link #darray(int, int, int[], Distribution[], int[], int[], Order, Datatype)}
     * with global sizes beyond the int range.
     *
     * @param size          number of processes; must equal the product of psizes.
     * @param rank          this process, in [0, size).
     * @param gsizes        elements per dimension of the global array, each >= 1.
     * @param distributions distribution per dimension.
     * @param dargs         distribution argument per dimension, >= 1 or {@link #DISTRIBUTE_DFLT_DARG}.
     * @param psizes        processes per dimension, each >= 1 (1 for NONE).
     * @param order         storage order.
     * @param oldtype       the element type.
     * @return a new, uncommitted datatype.
     */
    public static Datatype darray(final int size, final int rank, final long[] gsizes,
        final Distribution[] distributions, final int[] dargs, final int[] psizes, final Order order,
        final Datatype oldtype)
    {
        return ArrayTypes.darray(size, rank, gsizes, distributions, dargs, psizes, order, live(oldtype, "darray"));
    }

    /**
     * MPI_TYPE_CREATE_RESIZED: the same type map with explicit markers: lb = {@code lb}, ub = {@code lb +
     * extent}.
     *
     * @param lb          new lower bound in bytes.
     * @param extentBytes new extent in bytes.
     * @return a new, uncommitted datatype.
     */
    public Datatype resized(final long lb, final long extentBytes)
    {
        live(this, "resized");
        final Bounds bounds = new Bounds();
        bounds.lb = lb;
        bounds.ub = Checked.add(lb, extentBytes, "upper bound of resized");
        bounds.trueLb = trueLb;
        bounds.trueUb = trueUb;
        bounds.explicit = true;
        bounds.alignmentBytes = basicAlignment;
        return new Datatype("resized(" + this + ", lb=" + lb + ", extent=" + extentBytes + ")", false, bounds,
            signature, this::layout);
    }

    /**
     * MPI_TYPE_DUP: an equal type, committed if this one is.
     *
     * @return a new datatype.
     */
    public Datatype dup()
    {
        final Datatype copy = relabel("dup(" + live(this, "dup") + ")", this);
        return compiled != null ? copy.commit() : copy;
    }

    /**
     * Compiles the type map into its {@link CompiledType}; idempotent.
     *
     * @return this.
     */
    public Datatype commit()
    {
        if (compiled == null)
        {
            synchronized (this)
            {
                requireLive("commit");
                if (compiled == null)
                {
                    compiled = CompiledType.compile(this, layout());
                }
            }
        }
        requireLive("commit");
        return this;
    }

    /**
     * @return whether {@link #commit()} has run.
     */
    public boolean isCommitted()
    {
        return compiled != null;
    }

    /**
     * Marks the type freed (MPI_TYPE_FREE): later use of this object throws.
     */
    public void free()
    {
        if (predefined)
        {
            throw new DatatypeException(ErrorClass.TYPE, "predefined datatype " + description + " cannot be freed");
        }
        requireLive("free");
        freed = true;
    }

    /**
     * @return whether {@link #free()} has run.
     */
    public boolean isFreed()
    {
        return freed;
    }

    /**
     * @return the compiled form.
     * @throws DatatypeException if the type is not committed or was freed.
     */
    public CompiledType compiled()
    {
        requireLive("compiled");
        final CompiledType result = compiled;
        if (result == null)
        {
            throw new DatatypeException(ErrorClass.TYPE, "datatype " + this + " is not committed: call commit() " +
                "before using it for communication or packing");
        }
        return result;
    }

    /**
     * @return packed size in bytes of one instance (MPI_TYPE_SIZE).
     */
    public long size()
    {
        requireLive("size");
        return signature.sizeBytes;
    }

    /**
     * @return ub - lb in bytes.
     */
    public long extent()
    {
        requireLive("extent");
        return ub - lb;
    }

    /**
     * @return lower bound in bytes.
     */
    public long lb()
    {
        requireLive("lb");
        return lb;
    }

    /**
     * @return upper bound in bytes.
     */
    public long ub()
    {
        requireLive("ub");
        return ub;
    }

    /**
     * @return lowest byte displacement of a basic element (0 without elements).
     */
    public long trueLb()
    {
        requireLive("trueLb");
        return trueLb;
    }

    /**
     * @return one past the highest byte of a basic element minus {@link #trueLb()}.
     */
    public long trueExtent()
    {
        requireLive("trueExtent");
        return trueUb - trueLb;
    }

    /**
     * @return number of basic elements in one instance.
     */
    public long elementCount()
    {
        requireLive("elementCount");
        return signature.length;
    }

    /**
     * @return the signature of one instance.
     */
    public TypeSignature signature()
    {
        requireLive("signature");
        return new TypeSignature(signature);
    }

    /**
     * @param count number of instances, >= 0.
     * @return the signature of {@code count} consecutive instances.
     */
    public TypeSignature signature(final long count)
    {
        requireLive("signature");
        Checked.nonNegative(count, "signature count", ErrorClass.COUNT);
        return new TypeSignature(SignatureNode.repeat(count, signature));
    }

    /**
     * MPI_GET_COUNT.
     *
     * @param receivedBytes bytes received, >= 0.
     * @return whole instances in them, or {@link #UNDEFINED} if they are not a whole number of instances.
     */
    public long countOf(final long receivedBytes)
    {
        requireLive("countOf");
        Checked.nonNegative(receivedBytes, "received bytes", ErrorClass.SIZE);
        final long size = signature.sizeBytes;
        if (size == 0)
        {
            return receivedBytes == 0 ? 0 : UNDEFINED;
        }
        return receivedBytes % size == 0 ? receivedBytes / size : UNDEFINED;
    }

    /**
     * MPI_GET_ELEMENTS.
     *
     * @param receivedBytes bytes received, >= 0.
     * @return basic elements in them, or {@link #UNDEFINED} if they end inside a basic element.
     */
    public long elementsOf(final long receivedBytes)
    {
        requireLive("elementsOf");
        Checked.nonNegative(receivedBytes, "received bytes", ErrorClass.SIZE);
        final long size = signature.sizeBytes;
        if (size == 0)
        {
            return receivedBytes == 0 ? 0 : UNDEFINED;
        }
        final long whole = receivedBytes / size;
        final long rest = signature.elementsInBytes(receivedBytes - whole * size);
        return rest < 0 ? UNDEFINED : Checked.add(Checked.multiply(whole, signature.length, "element count"), rest,
            "element count");
    }

    /**
     * Checks that a message fits a receive buffer of {@code count} instances (MPI_ERR_TRUNCATE).
     *
     * @param count         instances the receive buffer holds, >= 0.
     * @param incomingBytes bytes the message carries.
     * @param context       names the message in the error, for example {@code tag=7, source=1}.
     * @throws TruncationException if the message is longer than the buffer.
     */
    public void checkReceive(final long count, final long incomingBytes, final String context)
    {
        requireLive("checkReceive");
        Checked.nonNegative(count, "receive count", ErrorClass.COUNT);
        final long capacity = Checked.multiply(count, signature.sizeBytes, "receive buffer size", ErrorClass.COUNT);
        if (incomingBytes > capacity)
        {
            throw new TruncationException(capacity, incomingBytes, context);
        }
    }

    /**
     * Checks MPI type matching: the signature of an incoming message must be a prefix of the signature of
     * {@code count} instances of this type.
     *
     * @param count    instances the receive buffer holds.
     * @param incoming signature of the message.
     * @param context  names the message in the error.
     * @throws TruncationException        if the message has more elements than expected.
     * @throws SignatureMismatchException if its types differ from the expected ones.
     */
    public void checkSignature(final long count, final TypeSignature incoming, final String context)
    {
        final TypeSignature expected = signature(count);
        if (incoming.length() > expected.length())
        {
            throw new TruncationException(expected.sizeBytes(), incoming.sizeBytes(), context);
        }
        if (!incoming.equals(expected.prefix(incoming.length())))
        {
            throw new SignatureMismatchException("message signature " + incoming + " is not a prefix of the " +
                "receive signature " + expected + " of " + count + " x " + this +
                (context == null || context.isEmpty() ? "" : " (" + context + ")"));
        }
    }

    /**
     * MPI_PACK_SIZE: the bytes {@link #pack} takes for {@code count} instances, exactly {@code count * size()}.
     *
     * @param count instances, >= 0.
     * @return packed bytes of {@code count} instances.
     * @throws DatatypeException of class {@link ErrorClass#COUNT} when the count is negative or its packed bytes
     *                           overflow the long limit; the message names the largest count that fits.
     */
    public long packSize(final long count)
    {
        requireLive("packSize");
        return StreamPacker.packSize(description, signature.sizeBytes, count);
    }

    /**
     * MPI_PACK on raw memory: packs {@code count} instances of this committed type from the typed buffer whose
     * displacement 0 is at {@code inAddress} into the packed buffer of {@code outsizeBytes} bytes at
     * {@code outAddress}, from byte {@code position} of it on. Calls chain: each returns where the next packs.
     * <pre>
     * long position = 0;
     * position = Datatype.INT.pack(countAddress, 1, buffer, bufferBytes, position);
     * position = face.pack(gridAddress, 1, buffer, bufferBytes, position);
     * </pre>
     *
     * @param inAddress    address of displacement 0 of the typed buffer.
     * @param count        instances to pack, >= 0.
     * @param outAddress   address of the packed buffer.
     * @param outsizeBytes bytes of the packed buffer (MPI's outsize), >= 0.
     * @param position     where in the packed buffer the bytes go, in [0, outsizeBytes].
     * @return {@code position + packSize(count)}.
     * @throws DatatypeException before anything is written: {@link ErrorClass#TYPE} if the type is not committed,
     *                           {@link ErrorClass#COUNT} for a bad count, {@link ErrorClass#SIZE} for a negative
     *                           outsize, {@link ErrorClass#ARG} for a position outside the buffer and
     *                           {@link ErrorClass#TRUNCATE} when the packed bytes do not fit after it.
     */
    public long pack(final long inAddress, final long count, final long outAddress, final long outsizeBytes,
        final long position)
    {
        requireLive("pack");
        return StreamPacker.pack(this, inAddress, count, outAddress, outsizeBytes, position);
    }

    /**
     * MPI_UNPACK on raw memory: unpacks {@code count} instances of this committed type from byte {@code position}
     * of the packed buffer of {@code insizeBytes} bytes at {@code inAddress} into the typed buffer whose
     * displacement 0 is at {@code outAddress}.
     *
     * @param inAddress   address of the packed buffer.
     * @param insizeBytes bytes of the packed buffer (MPI's insize), >= 0.
     * @param position    where in the packed buffer the bytes are, in [0, insizeBytes].
     * @param outAddress  address of displacement 0 of the typed buffer.
     * @param count       instances to unpack, >= 0.
     * @return {@code position + packSize(count)}, where the next unpack starts.
     * @throws DatatypeException before anything is written, of the classes {@link #pack(long, long, long, long,
     *                           long)} names; {@link ErrorClass#TRUNCATE} when fewer than
     *                           {@code packSize(count)} bytes follow the position.
     */
    public long unpack(final long inAddress, final long insizeBytes, final long position, final long outAddress,
        final long count)
    {
        requireLive("unpack");
        return StreamPacker.unpack(this, inAddress, insizeBytes, position, outAddress, count);
    }

    /**
     * MPI_PACK into a ByteBuffer, the way a Java buffer is written: the packed bytes go at {@code out}'s position,
     * which advances past them, and its limit is MPI's outsize. The typed buffer {@code in} (direct, or heap with
     * an accessible array) holds displacement 0 at byte {@code inIndex}; its position and limit are ignored, its
     * capacity must hold the data of {@code count} instances.
     *
     * @param in      typed buffer.
     * @param inIndex index in {@code in} of displacement 0.
     * @param count   instances to pack, >= 0.
     * @param out     packed buffer, written from its position.
     * @throws DatatypeException before anything is written, of the classes {@link #pack(long, long, long, long,
     *                           long)} names, and {@link ErrorClass#BUFFER} when the typed buffer cannot hold the
     *                           data or a buffer is read-only or without an accessible array.
     */
    public void pack(final ByteBuffer in, final int inIndex, final long count, final ByteBuffer out)
    {
        requireLive("pack");
        StreamPacker.pack(this, in, inIndex, count, out);
    }

    /**
     * MPI_UNPACK from a ByteBuffer, the way a Java buffer is read: the packed bytes are taken from {@code in}'s
     * position, which advances past them, up to its limit (MPI's insize). The typed buffer {@code out} holds
     * displacement 0 at byte {@code outIndex}; its capacity must hold the data of {@code count} instances.
     *
     * @param in       packed buffer, read from its position.
     * @param out      typed buffer.
     * @param outIndex index in {@code out} of displacement 0.
     * @param count    instances to unpack, >= 0.
     * @throws DatatypeException before anything is written, as {@link #pack(ByteBuffer, int, long, ByteBuffer)}.
     */
    public void unpack(final ByteBuffer in, final ByteBuffer out, final int outIndex, final long count)
    {
        requireLive("unpack");
        StreamPacker.unpack(this, in, out, outIndex, count);
    }

    /**
     * @return how the type was constructed.
     */
    public String toString()
    {
        return description;
    }

    static Datatype strided(final String description, final long count, final long blockLength,
        final long strideBytes, final Datatype oldtype)
    {
        nonNegative(count, "count", description, ErrorClass.COUNT);
        nonNegative(blockLength, "blockLength", description, ErrorClass.ARG);
        final long extent = oldtype.extentUnchecked();
        Checked.multiply(count, Checked.multiply(blockLength, oldtype.sizeUnchecked(), "size in bytes of " +
            description), "size in bytes of " + description);
        final Bounds bounds = new Bounds();
        bounds.add(0, oldtype, count, strideBytes, blockLength, extent);
        return new Datatype(description, false, bounds.finish(),
            SignatureNode.repeat(count, SignatureNode.repeat(blockLength, oldtype.signature)),
            () -> Layouts.vector(0, count, strideBytes, Layouts.vector(0, blockLength, extent, oldtype.layout())));
    }

    static Datatype blocks(final String description, final long[] blockLengths, final long[] displacementsBytes,
        final Datatype oldtype)
    {
        final long extent = oldtype.extentUnchecked();
        final Bounds bounds = new Bounds();
        final List<SignatureNode> signatures = new ArrayList<>(blockLengths.length);
        for (int i = 0; i < blockLengths.length; i++)
        {
            nonNegative(blockLengths[i], "blockLengths[" + i + "]", description, ErrorClass.ARG);
            bounds.add(displacementsBytes[i], oldtype, blockLengths[i], extent, 1, 0);
            signatures.add(SignatureNode.repeat(blockLengths[i], oldtype.signature));
        }
        return new Datatype(description, false, bounds.finish(), SignatureNode.sequence(signatures), () ->
        {
            final Node element = oldtype.layout();
            final List<Node> nodes = new ArrayList<>(blockLengths.length);
            for (int i = 0; i < blockLengths.length; i++)
            {
                nodes.add(Layouts.vector(displacementsBytes[i], blockLengths[i], extent, element));
            }
            return Layouts.sequence(nodes);
        });
    }

    static Datatype relabel(final String description, final Datatype type)
    {
        final Bounds bounds = new Bounds();
        bounds.lb = type.lb;
        bounds.ub = type.ub;
        bounds.trueLb = type.trueLb;
        bounds.trueUb = type.trueUb;
        bounds.explicit = type.explicitBounds;
        bounds.alignmentBytes = type.basicAlignment;
        return new Datatype(description, false, bounds, type.signature, type::layout);
    }

    synchronized Node layout()
    {
        if (!layoutBuilt)
        {
            layout = layoutSource.build();
            layoutBuilt = true;
        }
        return layout;
    }

    long extentUnchecked()
    {
        return ub - lb;
    }

    long lbUnchecked()
    {
        return lb;
    }

    long ubUnchecked()
    {
        return ub;
    }

    long trueLbUnchecked()
    {
        return trueLb;
    }

    long trueUbUnchecked()
    {
        return trueUb;
    }

    long elementCountUnchecked()
    {
        return signature.length;
    }

    long sizeUnchecked()
    {
        return signature.sizeBytes;
    }

    boolean explicitBounds()
    {
        return explicitBounds;
    }

    int basicAlignment()
    {
        return basicAlignment;
    }

    static Datatype live(final Datatype type, final String operation)
    {
        if (type == null)
        {
            throw new DatatypeException(ErrorClass.TYPE, operation + ": the datatype is null");
        }
        type.requireLive(operation);
        return type;
    }

    static void nonNegative(final long value, final String name, final String constructor,
        final ErrorClass errorClass)
    {
        if (value < 0)
        {
            throw new DatatypeException(errorClass, constructor + ": " + name + " must be >= 0, was " + value);
        }
    }

    private void requireLive(final String operation)
    {
        if (freed)
        {
            throw new DatatypeException(ErrorClass.TYPE, operation + " on datatype " + description + " after it was " +
                "freed");
        }
    }

    private static void sameLength(final long[] blockLengths, final int otherLength, final String constructor)
    {
        Objects.requireNonNull(blockLengths, constructor + " blockLengths");
        if (otherLength != blockLengths.length)
        {
            throw new DatatypeException(ErrorClass.ARG,
                constructor + ": " + blockLengths.length + " block lengths but " +
                otherLength + " displacements or types; the counts must be equal");
        }
    }

    private static long[] filled(final int length, final long value)
    {
        final long[] values = new long[length];
        Arrays.fill(values, value);
        return values;
    }

    static String text(final int[] values)
    {
        return abbreviate(Arrays.toString(values));
    }

    static long[] widen(final int[] values)
    {
        return values == null ? null : Arrays.stream(values).asLongStream().toArray();
    }

    static String text(final long[] values)
    {
        return abbreviate(Arrays.toString(values));
    }

    private static String abbreviate(final String text)
    {
        return text.length() <= 120 ? text : text.substring(0, 117) + "...";
    }
}
