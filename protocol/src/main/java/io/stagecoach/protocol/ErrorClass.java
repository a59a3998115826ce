package io.stagecoach.protocol;

/**
 * The MPI error class of an error (MPI 4.0 section 9.4, and the process-fault classes of the fault tolerance
 * proposal), so that a program can tell kinds of failure apart without reading messages: an error carries one
 * beside its message, as {@code MPI_Error_class} gives one for an error code. Success has no class.
 */
public enum ErrorClass
{
    /** Invalid buffer: a buffer too small for the data it must hold, or memory that cannot be used. */
    BUFFER,
    /** Invalid count argument: a negative count or number of blocks, or a count whose bytes overflow. */
    COUNT,
    /** Invalid datatype: not committed, freed, predefined where a derived type is needed, or not matching. */
    TYPE,
    /** Invalid tag argument. */
    TAG,
    /** Invalid communicator. */
    COMM,
    /** Invalid source or destination rank. */
    RANK,
    /** Invalid request handle. */
    REQUEST,
    /** Invalid argument of some other kind: a block length, a displacement, an array of the wrong length. */
    ARG,
    /** Invalid number of dimensions. */
    DIMS,
    /** Invalid size argument: a negative or impossible size in bytes. */
    SIZE,
    /** A message or packed stream is longer than the buffer that receives it. */
    TRUNCATE,
    /** A value is too large to be represented: a size, extent or displacement beyond the 64-bit limit. */
    VALUE_TOO_LARGE,
    /** Memory could not be allocated. */
    NO_MEM,
    /** The error is in the status of one of several requests. */
    IN_STATUS,
    /** The request is still pending. */
    PENDING,
    /** A peer process failed; the operation involving it cannot complete. */
    PROC_FAILED,
    /** A receive from any source is pending while a process that could have matched it failed. */
    PROC_FAILED_PENDING,
    /** A peer process aborted. */
    PROC_ABORTED,
    /** The communicator was revoked. */
    REVOKED,
    /** An internal error of the runtime: a bug, not a misuse. */
    INTERN,
    /** A known error not in this list. */
    OTHER,
    /** An unknown error. */
    UNKNOWN;

    /**
     * @return the name MPI gives the class, for example {@code MPI_ERR_TRUNCATE}.
     */
    public String mpiName()
    {
        return "MPI_ERR_" + name();
    }
}
