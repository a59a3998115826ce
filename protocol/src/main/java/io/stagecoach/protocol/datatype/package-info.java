/**
 * MPI derived datatypes: the constructors of MPI 3.1 / 4.0 ({@link io.stagecoach.protocol.datatype.Datatype}),
 * their type signatures ({@link io.stagecoach.protocol.datatype.TypeSignature}) and the form a committed type is
 * compiled into once ({@link io.stagecoach.protocol.datatype.CompiledType}): a tree of BLOCK, VECTOR and SEQUENCE
 * nodes, vectorized by the paper's Algorithm 1, encoded as a {@code long[]} for kernels and walked by the host
 * pack and unpack of any byte range of the packed stream.
 */
package io.stagecoach.protocol.datatype;
