package io.stagecoach.pipeline.tune;

/**
 * Device costs derived from the figures measured on the H200 in {@code docs/benchmarks.md}, not measured by the
 * probes there: the stage pipeline's pack and unpack as StageCostProbe measured them in the stage pipeline's run A
 * (18.0 us + 47.3 B/ns, 13.1 us + 52.5 B/ns); a device operation and its event, copy or kernel, at the 8 B pack's
 * launch to completion of the device layer's 20:10 run (6.04 us), copies at the 64 MB strided pack's rate with 1 KiB
 * blocks (3.66 TB/s read and written, 1,830 B/ns packed), kernels at its rate with 64 B blocks (3.54 TB/s, 1,770
 * B/ns); host memory at the host path's 4 MiB bandwidth on the same machine (run U, 9,404 MB/s).
 */
final class H200Costs
{
    static final DeviceCosts COSTS = new DeviceCosts(
        new StageCosts(18_000, 47.3, StageCostProbe.ARENA_WIRE_FIXED_NS, Double.POSITIVE_INFINITY, 13_100, 52.5),
        9.404,
        new PathCosts(6_040, 1_830, 6_040, 1_770, 6_040, 6_040));

    private H200Costs()
    {
    }
}
