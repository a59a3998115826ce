package io.stagecoach.protocol.datatype;

/**
 * Storage order of a multi-dimensional array (MPI_ORDER_C, MPI_ORDER_FORTRAN).
 */
public enum Order
{
    /**
     * Row-major: the last dimension varies fastest.
     */
    C,

    /**
     * Column-major: the first dimension varies fastest.
     */
    FORTRAN
}
