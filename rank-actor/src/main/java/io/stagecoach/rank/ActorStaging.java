package io.stagecoach.rank;

import java.util.concurrent.atomic.AtomicLong;

import io.stagecoach.pipeline.PackedHostBuffer;
import io.stagecoach.pipeline.StagingPath;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * The engine's staging requests: small messages are staged on the engine's thread, larger ones are handed to the
 * rank actor; host memory for incoming device messages is allocated at once, on the engine's thread.
 */
final class ActorStaging implements StagingRequests
{
    private final StagingPath path;
    private final AtomicLong actorStagings = new AtomicLong();
    private volatile ActorRef<RankBehavior.Command> actor;

    ActorStaging(final StagingPath path)
    {
        this.path = path;
    }

    void actor(final ActorRef<RankBehavior.Command> actor)
    {
        this.actor = actor;
    }

    /**
     * @return stagings handed to the rank actor so far, in either direction.
     */
    long actorStagings()
    {
        return actorStagings.get();
    }

    public PackedHostBuffer allocate(final long packedBytes)
    {
        return path().allocate(packedBytes);
    }

    public PackedHostBuffer packNow(final SendOperation send)
    {
        return path().packToHostNow(send.buffer.baseAddress(), send.buffer.device(), send.count, send.compiled,
            send.packedBytes);
    }

    public void unpackNow(final ReceiveOperation receive)
    {
        path().unpackToDeviceNow(receive.staging, receive.receivedBytes, receive.buffer.baseAddress(),
            receive.buffer.device(), receive.count, receive.compiled);
    }

    public void stageOut(final SendOperation send)
    {
        actorStagings.incrementAndGet();
        actor.tell(new RankBehavior.StageOut(send));
    }

    public void stageIn(final ReceiveOperation receive)
    {
        actorStagings.incrementAndGet();
        actor.tell(new RankBehavior.StageIn(receive));
    }

    private StagingPath path()
    {
        if (path == null)
        {
            throw new StagecoachException("no device runtime is configured to stage device memory");
        }
        return path;
    }
}
