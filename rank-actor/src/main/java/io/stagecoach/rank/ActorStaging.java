package io.stagecoach.rank;

import io.stagecoach.pipeline.PackedHostBuffer;
import io.stagecoach.pipeline.StagingPath;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * The engine's staging requests, handed to the rank actor; host memory for incoming device messages is allocated
 * at once, on the engine's thread.
 */
final class ActorStaging implements ProgressEngine.StagingRequests
{
    private final StagingPath path;
    private volatile ActorRef<RankBehavior.Command> actor;

    ActorStaging(final StagingPath path)
    {
        this.path = path;
    }

    void actor(final ActorRef<RankBehavior.Command> actor)
    {
        this.actor = actor;
    }

    public PackedHostBuffer allocate(final long packedBytes)
    {
        if (path == null)
        {
            throw new StagecoachException("no device runtime is configured to receive into device memory");
        }
        return path.allocate(packedBytes);
    }

    public void stageOut(final SendOperation send)
    {
        actor.tell(new RankBehavior.StageOut(send));
    }

    public void stageIn(final ReceiveOperation receive)
    {
        actor.tell(new RankBehavior.StageIn(receive));
    }
}
