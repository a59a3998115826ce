/**
 * What every layer of Stagecoach shares: the MPI error classes ({@link io.stagecoach.protocol.ErrorClass}) that
 * errors of the datatype engine and of communication carry. The datatypes are in
 * {@link io.stagecoach.protocol.datatype}, the wire messages in {@link io.stagecoach.protocol.wire}.
 */
package io.stagecoach.protocol;
