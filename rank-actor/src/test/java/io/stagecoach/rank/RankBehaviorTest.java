package io.stagecoach.rank;

import java.time.Duration;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import io.stagecoach.rank.engine.CommandSink;
import io.stagecoach.rank.engine.EngineCommand;
import io.stagecoach.rank.engine.PeerLossListener;
import io.stagecoach.rank.engine.PeerProcesses;
import org.apache.pekko.actor.testkit.typed.annotations.JUnit5TestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.JUnit5TestKitBuilder;
import org.apache.pekko.actor.testkit.typed.javadsl.TestKitJUnit5Extension;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

/**
 * The rank actor on its own: peer deaths become engine commands, handed to the engine's queue only; peers lost are
 * told to the launcher; a same-node peer whose process is gone is reported dead by the actor's own timer.
 */
@ExtendWith(TestKitJUnit5Extension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RankBehaviorTest
{
    @JUnit5TestKit
    public ActorTestKit testKit = new JUnit5TestKitBuilder().build();

    @Test
    void shouldEnqueueAPeerDeathForTheEngineWithoutRunningIt()
    {
        final TestProbe<EngineCommand> enqueued = testKit.createTestProbe();
        final ActorRef<RankBehavior.Command> actor = testKit.spawn(RankBehavior.create(sink(enqueued)));

        actor.tell(new RankBehavior.PeerDied(2, "exit status 137"));

        assertNotNull(enqueued.receiveMessage(), "the death went to the engine's queue");
    }

    @Test
    void shouldTellTheLauncherOfAPeerLost() throws InterruptedException
    {
        final TestProbe<EngineCommand> enqueued = testKit.createTestProbe();
        final LinkedBlockingQueue<String> told = new LinkedBlockingQueue<>();
        final ActorRef<RankBehavior.Command> actor = testKit.spawn(
            RankBehavior.create(sink(enqueued), null, (rank, reason) -> told.add(rank + " " + reason)));

        actor.tell(new RankBehavior.PeerLost(3, "its stream ended"));

        assertEquals("3 its stream ended", told.poll(5, TimeUnit.SECONDS));
    }

    @Test
    void shouldReportASameNodePeerWhoseProcessIsGone() throws Exception
    {
        final TestProbe<EngineCommand> enqueued = testKit.createTestProbe();
        final PeerProcesses processes = new PeerProcesses(2);
        final Process child = new ProcessBuilder("sleep", "30").start();
        processes.watch(1, child.toHandle());
        testKit.spawn(RankBehavior.create(sink(enqueued), processes, PeerLossListener.NONE));
        enqueued.expectNoMessage(Duration.ofMillis(3 * PeerProcesses.CHECK_INTERVAL_MS));

        child.destroyForcibly().waitFor();

        assertNotNull(enqueued.receiveMessage(Duration.ofSeconds(5)), "the process check reported rank 1");
        enqueued.expectNoMessage(Duration.ofMillis(3 * PeerProcesses.CHECK_INTERVAL_MS));
    }

    private static CommandSink sink(final TestProbe<EngineCommand> enqueued)
    {
        return new CommandSink()
        {
            public int rank()
            {
                return 0;
            }

            public void submit(final EngineCommand command)
            {
                throw new AssertionError("the rank actor must only enqueue");
            }

            public void enqueue(final EngineCommand command)
            {
                enqueued.getRef().tell(command);
            }
        };
    }
}
