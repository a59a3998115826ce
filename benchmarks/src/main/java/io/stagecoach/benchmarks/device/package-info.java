/**
 * Device benchmarks: host overhead of a pack call, halo faces packed end to end, a strided pack of 64 MB and pinned
 * copies, run on whatever back end the device runtime picks (the H200 in the GPU suite).
 */
package io.stagecoach.benchmarks.device;
