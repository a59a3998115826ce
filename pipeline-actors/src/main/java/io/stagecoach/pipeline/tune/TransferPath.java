package io.stagecoach.pipeline.tune;

/**
 * The ways a device message can go from one rank to another ({@code docs/pipeline.md}, "Choosing the path").
 */
public enum TransferPath
{
    /** Packed into pinned host memory on the sender's thread, sent in one message, unpacked on arrival. */
    EAGER("eager"),
    /** Got by the receiver out of the sender's device buffer over CUDA IPC: ranks of one node only. */
    ONE_SIDED("one-sided"),
    /** Through the stage pipeline in chunks: pack, wire and unpack overlapping. */
    STAGED("staged");

    private final String label;

    TransferPath(final String label)
    {
        this.label = label;
    }

    /**
     * @return the path's name as the documentation and {@code stagecoach tune} write it.
     */
    public String label()
    {
        return label;
    }
}
