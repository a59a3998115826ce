package io.stagecoach.pipeline.stage;

import io.stagecoach.pipeline.transfer.TransferPort;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;

/**
 * A {@link TransferPort} that tells a probe every call the pipeline makes, as a {@link Fact}, in the order made.
 */
final class RecordingPort implements TransferPort
{
    /**
     * A call of the pipeline.
     */
    sealed interface Fact
    {
    }

    record ChunkPacked(int chunk, long hostAddress) implements Fact
    {
    }

    record ChunkSlot(int chunk, long hostAddress) implements Fact
    {
    }

    record ChunkUnpacked(int chunk) implements Fact
    {
    }

    record TransferFailed(Throwable failure) implements Fact
    {
    }

    private final TestProbe<Fact> probe;

    RecordingPort(final TestProbe<Fact> probe)
    {
        this.probe = probe;
    }

    public void chunkPacked(final int chunk, final long hostAddress)
    {
        probe.getRef().tell(new ChunkPacked(chunk, hostAddress));
    }

    public void chunkSlot(final int chunk, final long hostAddress)
    {
        probe.getRef().tell(new ChunkSlot(chunk, hostAddress));
    }

    public void chunkUnpacked(final int chunk)
    {
        probe.getRef().tell(new ChunkUnpacked(chunk));
    }

    public void transferFailed(final Throwable failure)
    {
        probe.getRef().tell(new TransferFailed(failure));
    }
}
