/**
 * OMB-style end-to-end benchmarks run as Stagecoach ranks by the launcher ({@code stagecoach run -n 2 <name>}):
 * {@link io.stagecoach.benchmarks.omb.Latency} ({@code latency}), {@link io.stagecoach.benchmarks.omb.ActorLatency}
 * ({@code actor-latency}: the same ping-pong through the actor API beside it),
 * {@link io.stagecoach.benchmarks.omb.Bandwidth} ({@code bw}), {@link io.stagecoach.benchmarks.omb.BiBandwidth}
 * ({@code bibw}) and {@link io.stagecoach.benchmarks.omb.Halo} ({@code halo}), on host or device buffers
 * ({@code H}/{@code D} per rank, device memory from the device layer, emulated where there is no GPU). Rank 0
 * prints OMB's output format. They need nothing but the runtime class path, so they run from the self-contained
 * bundle as well. Their peers:
 * {@code benchmarks/peers/osu_p2p.c} (Open MPI) and the Aeron IPC samples, side by side through
 * {@code benchmarks/scripts/p2p-side-by-side.sh}.
 */
package io.stagecoach.benchmarks.omb;
