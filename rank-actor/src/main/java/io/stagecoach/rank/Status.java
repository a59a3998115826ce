package io.stagecoach.rank;

import io.stagecoach.protocol.ErrorClass;
import io.stagecoach.protocol.datatype.Datatype;
import io.stagecoach.protocol.datatype.DatatypeException;

/**
 * The outcome of a completed request (MPI_Status): who sent the message, with which tag, how much of it arrived,
 * and the error when the request failed.
 * <p>
 * For a receive, {@link #count()} is in elements of the receive datatype (MPI_Get_count), or
 * {@link Datatype#UNDEFINED} when the message is not a whole number of them; for a send it is the count sent; for
 * a probe it is in bytes ({@link Datatype#BYTE} elements): use {@link #countOf(Datatype)} for another type.
 */
public final class Status
{
    private final int source;
    private final int tag;
    private final long count;
    private final long byteCount;
    private final Throwable error;
    private final boolean cancelled;

    /**
     * A status of a request that was not cancelled.
     * <p>
     * Public for the progress engine ({@code io.stagecoach.rank.engine}); applications do not call it.
     *
     * @param source    the source rank.
     * @param tag       the tag.
     * @param count     elements of the request's type, or {@link Datatype#UNDEFINED}.
     * @param byteCount bytes.
     * @param error     the failure, or null.
     */
    public Status(final int source, final int tag, final long count, final long byteCount, final Throwable error)
    {
        this(source, tag, count, byteCount, error, false);
    }

    private Status(
        final int source,
        final int tag,
        final long count,
        final long byteCount,
        final Throwable error,
        final boolean cancelled)
    {
        this.source = source;
        this.tag = tag;
        this.count = count;
        this.byteCount = byteCount;
        this.error = error;
        this.cancelled = cancelled;
    }

    /**
     * A successful status whose count is the elements of a type of the given size in the bytes.
     * <p>
     * Public for the progress engine ({@code io.stagecoach.rank.engine}); applications do not call it.
     *
     * @param source        the source rank.
     * @param tag           the tag.
     * @param byteCount     bytes.
     * @param typeSizeBytes size of the request's type.
     * @return the status.
     */
    public static Status of(final int source, final int tag, final long byteCount, final long typeSizeBytes)
    {
        return new Status(source, tag, countOf(byteCount, typeSizeBytes), byteCount, null);
    }

    /**
     * A failed status.
     * <p>
     * Public for the progress engine ({@code io.stagecoach.rank.engine}); applications do not call it.
     *
     * @param source the source (or destination) rank.
     * @param tag    the tag.
     * @param error  the failure.
     * @return the status.
     */
    public static Status failed(final int source, final int tag, final Throwable error)
    {
        return new Status(source, tag, 0, 0, error);
    }

    /**
     * The status of a cancelled receive.
     * <p>
     * Public for the progress engine ({@code io.stagecoach.rank.engine}); applications do not call it.
     *
     * @param source the source the receive was posted with.
     * @param tag    the tag.
     * @return the status.
     */
    public static Status cancelled(final int source, final int tag)
    {
        return new Status(source, tag, 0, 0, null, true);
    }

    /**
     * @return rank the message came from (for a send: the destination).
     */
    public int source()
    {
        return source;
    }

    /**
     * @return tag of the message.
     */
    public int tag()
    {
        return tag;
    }

    /**
     * @return elements of the request's datatype in the message, or {@link Datatype#UNDEFINED}.
     */
    public long count()
    {
        return count;
    }

    /**
     * @return packed bytes of the message.
     */
    public long byteCount()
    {
        return byteCount;
    }

    /**
     * @return why the request failed, or null when it succeeded.
     */
    public Throwable error()
    {
        return error;
    }

    /**
     * @return true when the request failed.
     */
    public boolean isError()
    {
        return error != null;
    }

    /**
     * @return the MPI error class of the failure ({@link ErrorClass#TRUNCATE}, {@link ErrorClass#PROC_FAILED}, ...):
     * the one the error carries, {@link ErrorClass#ARG} for another invalid argument, {@link ErrorClass#OTHER} for
     * anything else; null when the request succeeded.
     */
    public ErrorClass errorClass()
    {
        if (error == null)
        {
            return null;
        }
        if (error instanceof StagecoachException stagecoach)
        {
            return stagecoach.errorClass();
        }
        if (error instanceof DatatypeException datatype)
        {
            return datatype.errorClass();
        }
        if (error instanceof InvalidArgumentException argument)
        {
            return argument.errorClass();
        }
        return error instanceof IllegalArgumentException ? ErrorClass.ARG : ErrorClass.OTHER;
    }

    /**
     * @return true when the request was cancelled before a message matched it (MPI_Test_cancelled); nothing arrived,
     * and the source and tag are those the receive asked for.
     */
    public boolean isCancelled()
    {
        return cancelled;
    }

    /**
     * MPI_Get_count for another datatype.
     *
     * @param type a committed datatype.
     * @return whole instances of {@code type} in the message, or {@link Datatype#UNDEFINED}.
     */
    public long countOf(final Datatype type)
    {
        return type.countOf(byteCount);
    }

    public String toString()
    {
        return "Status{source=" + source + ", tag=" + tag + ", count=" + count + ", bytes=" + byteCount +
            (cancelled ? ", cancelled" : "") + (error == null ? "" : ", error=" + error) + "}";
    }

    static long countOf(final long byteCount, final long typeSizeBytes)
    {
        if (typeSizeBytes == 0)
        {
            return byteCount == 0 ? 0 : Datatype.UNDEFINED;
        }
        return byteCount % typeSizeBytes == 0 ? byteCount / typeSizeBytes : Datatype.UNDEFINED;
    }
}
