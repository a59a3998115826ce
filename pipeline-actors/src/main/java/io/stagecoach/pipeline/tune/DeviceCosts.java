package io.stagecoach.pipeline.tune;

/**
 * Every cost a node's device paths are chosen by, as measured there once and cached ({@link StageCostCache}): the
 * stage pipeline's stages (with the arena wire, between ranks of one node), the throughput of host memory that the
 * stream wire and eager messages copy through, and the device work of the one-sided and eager paths.
 *
 * @param stages               of the stage pipeline, with the arena wire.
 * @param streamWireBytesPerNs host memory's copy throughput, halved (a streamed byte is copied twice), bytes per ns.
 * @param paths                device work of the one-sided and eager paths.
 */
public record DeviceCosts(StageCosts stages, double streamWireBytesPerNs, PathCosts paths)
{
    /**
     * @return the stage pipeline's costs with the stream wire, between nodes: its fixed cost and two host copies.
     */
    public StageCosts streamStages()
    {
        return stages.withWire(StageCostProbe.STREAM_WIRE_FIXED_NS, streamWireBytesPerNs);
    }
}
