/**
 * Micro-benchmarks of the datatype engine's host pack, run with JMH: the halo faces of a 3D float grid packed
 * with {@link io.stagecoach.protocol.datatype.CompiledType#pack(long, long, long, long, long)} beside a plain
 * memory copy of the same number of bytes. {@link io.stagecoach.benchmarks.datatype.PackFacesTable} runs them
 * and prints a table beside the figures of the MPI_Pack peer in {@code benchmarks/peers/mpi_pack_faces.c}.
 */
package io.stagecoach.benchmarks.datatype;
