package io.stagecoach.rank;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import io.stagecoach.device.DeviceContext;
import io.stagecoach.device.DeviceKind;
import io.stagecoach.device.DeviceRuntime;
import io.stagecoach.device.RandomTypes;
import io.stagecoach.device.TestMemory;
import io.stagecoach.protocol.ErrorClass;
import io.stagecoach.protocol.datatype.Datatype;
import io.stagecoach.rank.MessagingBehavior.Command;
import io.stagecoach.rank.MessagingBehavior.Failed;
import io.stagecoach.rank.MessagingBehavior.MessageArrived;
import io.stagecoach.rank.MessagingBehavior.Probe;
import io.stagecoach.rank.MessagingBehavior.Probed;
import io.stagecoach.rank.MessagingBehavior.Receive;
import io.stagecoach.rank.MessagingBehavior.Received;
import io.stagecoach.rank.MessagingBehavior.Rejected;
import io.stagecoach.rank.MessagingBehavior.Reply;
import io.stagecoach.rank.MessagingBehavior.Send;
import io.stagecoach.rank.MessagingBehavior.Sent;
import io.stagecoach.rank.MessagingBehavior.SubscribeArrivals;
import io.stagecoach.rank.MessagingBehavior.Subscribed;
import io.stagecoach.rank.MessagingBehavior.UnsubscribeArrivals;
import io.stagecoach.rank.MessagingBehavior.Unsubscribed;
import org.agrona.BufferUtil;
import org.apache.pekko.actor.testkit.typed.annotations.JUnit5TestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.JUnit5TestKitBuilder;
import org.apache.pekko.actor.testkit.typed.javadsl.TestKitJUnit5Extension;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The messaging actor of two ranks of one job in this JVM: sends and receives answered by messages in host and
 * (emulated) device memory, every pair of them, edge sizes and seeded random datatypes; probes; subscriptions to
 * unexpected arrivals; the bound on requests in flight per requester; failures that name the bad value and its
 * limit, or the lost peer.
 */
@ExtendWith(TestKitJUnit5Extension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MessagingBehaviorTest
{
    private static final Duration TIMEOUT = Duration.ofSeconds(20);
    private static final Duration QUIET = Duration.ofMillis(300);
    private static final int THRESHOLD = 4096;
    private static final int CHUNK = 4096;
    private static final long SEED = RandomTypes.seed("MessagingBehaviorTest");

    @JUnit5TestKit
    public ActorTestKit testKit = new JUnit5TestKitBuilder().build();

    @TempDir
    static Path directory;

    private DeviceRuntime device;
    private LocalJob job;
    private ActorRef<Command> rank0;
    private ActorRef<Command> rank1;
    private int tag = 100;

    @BeforeAll
    void start()
    {
        device = DeviceRuntime.open(new DeviceContext().kind(DeviceKind.EMULATED).emulatedDeviceCount(2)
            .emulatedMemoryBytes(256L << 20));
        job = LocalJob.start(directory, 2, context -> context.eagerThresholdBytes(THRESHOLD).deviceRuntime(device)
            .chunkBytes(CHUNK));
        rank0 = testKit.spawn(MessagingBehavior.create(job.rank(0)), "rank-0");
        rank1 = testKit.spawn(MessagingBehavior.create(job.rank(1)), "rank-1");
    }

    @AfterAll
    void stop()
    {
        job.close();
        device.close();
    }

    static Stream<Arguments> memoryPairsAndSizes()
    {
        final List<Arguments> cases = new ArrayList<>();
        for (final String pair : List.of("H H", "H D", "D H", "D D"))
        {
            for (final long packedBytes : List.of(0L, 1L, CHUNK - 1L, (long)CHUNK, CHUNK + 1L, (4L << 20) + 20))
            {
                cases.add(Arguments.of(pair.charAt(0) == 'D', pair.charAt(2) == 'D', packedBytes));
            }
        }
        return cases.stream();
    }

    @ParameterizedTest(name = "device {0} -> device {1}, {2} bytes")
    @MethodSource("memoryPairsAndSizes")
    void shouldMoveAMessageOfARandomDatatypeBetweenHostAndDeviceMemory(
        final boolean fromDevice, final boolean toDevice, final long packedBytes)
    {
        final RandomTypes random = new RandomTypes(SEED ^ (fromDevice + " " + toDevice + " " + packedBytes).hashCode());
        final ExactMessage message = ExactMessage.of(random, packedBytes, CHUNK);
        final ByteBuffer source = TestBytes.random(random, message.spanBytes());
        final ByteBuffer poison = TestBytes.poison(message.spanBytes());
        final TestProbe<Reply> sender = testKit.createTestProbe();
        final TestProbe<Reply> receiver = testKit.createTestProbe();
        try (TestMemory from = TestMemory.of(fromDevice, device, 0, message.spanBytes());
             TestMemory to = TestMemory.of(toDevice, device, 1, message.spanBytes()))
        {
            from.write(source);
            to.write(poison);
            final int messageTag = nextTag();
            rank1.tell(new Receive(7, dataBuffer(to), message.count(), message.type(), 0, messageTag,
                receiver.getRef()));
            rank0.tell(new Send(8, dataBuffer(from), message.count(), message.type(), 1, messageTag, sender.getRef()));

            final Sent sent = sender.expectMessageClass(Sent.class, TIMEOUT);
            assertEquals(8, sent.requestId());
            assertEquals(1, sent.status().source(), "a send's status names its destination");
            final Received received = receiver.expectMessageClass(Received.class, TIMEOUT);
            assertEquals(7, received.requestId());
            assertEquals(0, received.status().source());
            assertEquals(messageTag, received.status().tag());
            assertEquals(message.count(), received.status().count(), "instances received");
            assertEquals(packedBytes, received.status().byteCount());
            final int wrong = message.unpackedInto(source, poison).limit(message.spanBytes()).mismatch(to.read());
            assertEquals(-1, wrong, "byte " + wrong + " of " + message.type());
        }
    }

    @Test
    void shouldMovePredefinedTypesFromRawMemoryAndByteBuffers()
    {
        final TestProbe<Reply> sender = testKit.createTestProbe();
        final TestProbe<Reply> receiver = testKit.createTestProbe();
        final ByteBuffer out = ByteBuffer.allocateDirect(10 * Double.BYTES).order(ByteOrder.nativeOrder());
        for (int i = 0; i < 10; i++)
        {
            out.putDouble(i * Double.BYTES, i * 1.25);
        }
        final ByteBuffer in = ByteBuffer.allocateDirect(16 * Double.BYTES).order(ByteOrder.nativeOrder());
        final int messageTag = nextTag();

        rank0.tell(new Receive(1, DataBuffer.of(BufferUtil.address(in), in.capacity()), 16, Datatype.DOUBLE, 1,
            Communicator.ANY_TAG, receiver.getRef()));
        rank1.tell(new Send(2, out, 10, Datatype.DOUBLE, 0, messageTag, sender.getRef()));

        assertEquals(2, sender.expectMessageClass(Sent.class, TIMEOUT).requestId());
        final Status status = receiver.expectMessageClass(Received.class, TIMEOUT).status();
        assertEquals(10, status.count(), "doubles received into a buffer of 16");
        assertEquals(messageTag, status.tag(), "ANY_TAG took the message's tag");
        assertEquals(20, status.countOf(Datatype.INT));
        for (int i = 0; i < 10; i++)
        {
            assertEquals(i * 1.25, in.getDouble(i * Double.BYTES), "double " + i);
        }
    }

    @Test
    void shouldAnswerAProbeWithTheEnvelopeOfAHeldMessageOrNone()
    {
        final TestProbe<Reply> requester = testKit.createTestProbe();
        final int messageTag = nextTag();
        rank1.tell(new Probe(1, 0, messageTag, requester.getRef()));
        assertTrue(requester.expectMessageClass(Probed.class, TIMEOUT).envelope().isEmpty(), "nothing was sent yet");

        rank1.tell(new SubscribeArrivals(2, messageTag, requester.getRef()));
        requester.expectMessageClass(Subscribed.class, TIMEOUT);
        rank0.tell(new Send(3, ByteBuffer.allocateDirect(24), 6, Datatype.INT, 1, messageTag, requester.getRef()));
        expectSentAndArrived(requester, 3, 2);

        rank1.tell(new Probe(4, Communicator.ANY_SOURCE, messageTag, requester.getRef()));
        final Probed probed = requester.expectMessageClass(Probed.class, TIMEOUT);
        assertEquals(4, probed.requestId());
        final Status envelope = probed.envelope().orElseThrow();
        assertEquals(0, envelope.source());
        assertEquals(messageTag, envelope.tag());
        assertEquals(24, envelope.count(), "a probe counts bytes");

        rank1.tell(new Receive(5, ByteBuffer.allocateDirect(24), 6, Datatype.INT, 0, messageTag, requester.getRef()));
        assertEquals(6, requester.expectMessageClass(Received.class, TIMEOUT).status().count());
        rank1.tell(new UnsubscribeArrivals(2, requester.getRef()));
        requester.expectMessageClass(Unsubscribed.class, TIMEOUT);
    }

    @Test
    void shouldTellASubscriberOfUnexpectedArrivalsOnItsTagOnly()
    {
        final TestProbe<Reply> subscriber = testKit.createTestProbe();
        final TestProbe<Reply> sender = testKit.createTestProbe();
        final int watched = nextTag();
        final int other = nextTag();
        rank1.tell(new SubscribeArrivals(1, watched, subscriber.getRef()));
        assertEquals(watched, subscriber.expectMessageClass(Subscribed.class, TIMEOUT).tag());

        rank0.tell(new Send(2, ByteBuffer.allocateDirect(8), 8, Datatype.BYTE, 1, other, sender.getRef()));
        rank0.tell(new Send(3, ByteBuffer.allocateDirect(8 * THRESHOLD), THRESHOLD, Datatype.LONG, 1, watched,
            sender.getRef()));
        final MessageArrived arrived = subscriber.expectMessageClass(MessageArrived.class, TIMEOUT);
        assertEquals(1, arrived.requestId());
        assertEquals(0, arrived.envelope().source());
        assertEquals(watched, arrived.envelope().tag());
        assertEquals(8L * THRESHOLD, arrived.envelope().count(), "a large message is told of by its RTS");
        subscriber.expectNoMessage(QUIET);

        rank1.tell(new Receive(4, ByteBuffer.allocateDirect(8 * THRESHOLD), THRESHOLD, Datatype.LONG, 0, watched,
            subscriber.getRef()));
        assertEquals(THRESHOLD, subscriber.expectMessageClass(Received.class, TIMEOUT).status().count());
        rank1.tell(new Receive(5, ByteBuffer.allocateDirect(8), 8, Datatype.BYTE, 0, other, subscriber.getRef()));
        subscriber.expectMessageClass(Received.class, TIMEOUT);
        sender.expectMessageClass(Sent.class, TIMEOUT);
        sender.expectMessageClass(Sent.class, TIMEOUT);

        rank1.tell(new UnsubscribeArrivals(1, subscriber.getRef()));
        assertEquals(1, subscriber.expectMessageClass(Unsubscribed.class, TIMEOUT).requestId());
        rank0.tell(new Send(6, ByteBuffer.allocateDirect(8), 1, Datatype.LONG, 1, watched, sender.getRef()));
        sender.expectMessageClass(Sent.class, TIMEOUT);
        subscriber.expectNoMessage(QUIET);
        rank1.tell(new Receive(7, ByteBuffer.allocateDirect(8), 1, Datatype.LONG, 0, watched, subscriber.getRef()));
        subscriber.expectMessageClass(Received.class, TIMEOUT);
    }

    @Test
    void shouldNotTellOfAMessageThatAPostedReceiveTakesNorSubscribeTwiceWithOneId()
    {
        final TestProbe<Reply> subscriber = testKit.createTestProbe();
        final int messageTag = nextTag();
        rank1.tell(new SubscribeArrivals(1, messageTag, subscriber.getRef()));
        subscriber.expectMessageClass(Subscribed.class, TIMEOUT);
        rank1.tell(new SubscribeArrivals(1, messageTag, subscriber.getRef()));
        expectFailure(subscriber, 1, ErrorClass.REQUEST, "subscription 1 of " + subscriber.getRef() +
            " exists already");

        rank1.tell(new Receive(2, ByteBuffer.allocateDirect(8), 1, Datatype.LONG, 0, messageTag, subscriber.getRef()));
        rank1.tell(new Probe(3, 0, messageTag, subscriber.getRef()));
        subscriber.expectMessageClass(Probed.class, TIMEOUT);
        rank0.tell(new Send(4, ByteBuffer.allocateDirect(8), 1, Datatype.LONG, 1, messageTag, subscriber.getRef()));
        final List<Reply> replies = List.of(subscriber.receiveMessage(TIMEOUT), subscriber.receiveMessage(TIMEOUT));
        assertTrue(replies.stream().anyMatch(reply -> reply instanceof Received received &&
            received.requestId() == 2), replies::toString);
        assertTrue(replies.stream().anyMatch(reply -> reply instanceof Sent sent && sent.requestId() == 4),
            replies::toString);
        subscriber.expectNoMessage(QUIET);
        rank1.tell(new UnsubscribeArrivals(1, subscriber.getRef()));
        subscriber.expectMessageClass(Unsubscribed.class, TIMEOUT);
    }

    @Test
    void shouldTellANewSubscriberOfTheMessagesAlreadyWaitingAfterSubscribed()
    {
        final TestProbe<Reply> subscriber = testKit.createTestProbe();
        final int messageTag = nextTag();
        rank0.tell(new Send(1, ByteBuffer.allocateDirect(4), 1, Datatype.INT, 1, messageTag, subscriber.getRef()));
        subscriber.expectMessageClass(Sent.class, TIMEOUT);
        awaitHeld(subscriber, messageTag);

        rank1.tell(new SubscribeArrivals(2, Communicator.ANY_TAG, subscriber.getRef()));
        assertEquals(Communicator.ANY_TAG, subscriber.expectMessageClass(Subscribed.class, TIMEOUT).tag());
        final MessageArrived waiting = subscriber.expectMessageClass(MessageArrived.class, TIMEOUT);
        assertEquals(messageTag, waiting.envelope().tag());
        assertEquals(4, waiting.envelope().count());

        rank1.tell(new UnsubscribeArrivals(2, subscriber.getRef()));
        subscriber.expectMessageClass(Unsubscribed.class, TIMEOUT);
        rank1.tell(new Receive(3, ByteBuffer.allocateDirect(4), 1, Datatype.INT, 0, messageTag, subscriber.getRef()));
        subscriber.expectMessageClass(Received.class, TIMEOUT);
    }

    @Test
    void shouldRejectARequestBeyondTheBoundPerRequesterNamingTheBoundAndTheCount()
    {
        final ActorRef<Command> bounded = testKit.spawn(MessagingBehavior.create(job.rank(1), 2));
        final TestProbe<Reply> busy = testKit.createTestProbe();
        final TestProbe<Reply> other = testKit.createTestProbe();
        final TestProbe<Reply> sender = testKit.createTestProbe();
        final int first = nextTag();
        final int second = nextTag();
        bounded.tell(new Receive(1, ByteBuffer.allocateDirect(8), 1, Datatype.LONG, 0, first, busy.getRef()));
        bounded.tell(new Receive(2, ByteBuffer.allocateDirect(8), 1, Datatype.LONG, 0, second, busy.getRef()));
        bounded.tell(new Probe(3, 0, first, busy.getRef()));

        final Rejected rejected = busy.expectMessageClass(Rejected.class, TIMEOUT);
        assertEquals(3, rejected.requestId());
        assertEquals(2, rejected.inFlight());
        assertEquals(2, rejected.maxInFlight());
        assertTrue(rejected.reason().contains("has 2 requests in flight, the bound per requester is 2 (maxInFlight): " +
            "probe(source=0, tag=" + first + ", id=3) rejected"), rejected.reason());
        bounded.tell(new Probe(4, 0, first, other.getRef()));
        assertTrue(other.expectMessageClass(Probed.class, TIMEOUT).envelope().isEmpty(), "another requester goes on");

        rank0.tell(new Send(5, ByteBuffer.allocateDirect(8), 1, Datatype.LONG, 1, first, sender.getRef()));
        assertEquals(1, busy.expectMessageClass(Received.class, TIMEOUT).requestId());
        bounded.tell(new Receive(6, ByteBuffer.allocateDirect(8), 1, Datatype.LONG, 0, first, busy.getRef()));
        rank0.tell(new Send(7, ByteBuffer.allocateDirect(8), 1, Datatype.LONG, 1, first, sender.getRef()));
        assertEquals(6, busy.expectMessageClass(Received.class, TIMEOUT).requestId(), "a reply freed a place");
        rank0.tell(new Send(8, ByteBuffer.allocateDirect(8), 1, Datatype.LONG, 1, second, sender.getRef()));
        assertEquals(2, busy.expectMessageClass(Received.class, TIMEOUT).requestId());
        for (int i = 0; i < 3; i++)
        {
            sender.expectMessageClass(Sent.class, TIMEOUT);
        }
        testKit.stop(bounded);
    }

    @Test
    void shouldFailBadArgumentsNamingTheValueAndTheLimit()
    {
        final TestProbe<Reply> requester = testKit.createTestProbe();
        rank0.tell(new Send(1, ByteBuffer.allocateDirect(8), 2, Datatype.INT, 2, 1, requester.getRef()));
        expectFailure(requester, 1, ErrorClass.RANK, "destination rank 2 is outside [0, 2)");
        rank0.tell(new Send(2, ByteBuffer.allocateDirect(8), 2, Datatype.INT, 1, -3, requester.getRef()));
        expectFailure(requester, 2, ErrorClass.TAG, "tag -3 is negative (only a receive may use ANY_TAG)");
        rank0.tell(new Receive(3, ByteBuffer.allocateDirect(8), 4, Datatype.INT, 1, 1, requester.getRef()));
        expectFailure(requester, 3, ErrorClass.BUFFER,
            "receive buffer of 8 bytes is too small for 4 x INT: the data spans bytes [0, 16) of it");
        rank0.tell(new Send(4, ByteBuffer.allocate(8), 2, Datatype.INT, 1, 1, requester.getRef()));
        expectFailure(requester, 4, ErrorClass.BUFFER,
            "send buffer must be a direct ByteBuffer, not a heap buffer of 8 bytes");
        rank0.tell(new Receive(5, ByteBuffer.allocateDirect(8), -1, Datatype.INT, 1, 1, requester.getRef()));
        expectFailure(requester, 5, ErrorClass.COUNT, "count -1 is negative");
        rank0.tell(new Probe(6, 7, 1, requester.getRef()));
        expectFailure(requester, 6, ErrorClass.RANK, "source rank 7 is outside [0, 2) and is not ANY_SOURCE (-1)");
        rank0.tell(new SubscribeArrivals(7, -5, requester.getRef()));
        expectFailure(requester, 7, ErrorClass.TAG, "tag -5 is negative and is not ANY_TAG (-1)");
        rank0.tell(new UnsubscribeArrivals(8, requester.getRef()));
        expectFailure(requester, 8, ErrorClass.REQUEST, "no subscription 8 of " + requester.getRef() + " to end");

        final InvalidArgumentException bound = assertThrows(InvalidArgumentException.class,
            () -> MessagingBehavior.create(job.rank(0), 0));
        assertEquals("maxInFlight 0 is outside [1, " + MessagingBehavior.MAX_IN_FLIGHT_LIMIT + "]",
            bound.getMessage());
    }

    @Test
    void shouldFailAReceiveTooSmallForTheMessageWithBothSizes()
    {
        final TestProbe<Reply> requester = testKit.createTestProbe();
        final int messageTag = nextTag();
        rank1.tell(new Receive(1, ByteBuffer.allocateDirect(16), 4, Datatype.INT, 0, messageTag, requester.getRef()));
        rank0.tell(new Send(2, ByteBuffer.allocateDirect(64), 16, Datatype.INT, 1, messageTag, requester.getRef()));
        final List<Reply> replies = List.of(requester.receiveMessage(TIMEOUT), requester.receiveMessage(TIMEOUT));
        final Failed failed = (Failed)replies.stream().filter(reply -> reply.requestId() == 1).findFirst()
            .orElseThrow(() -> new AssertionError("no reply to the receive: " + replies));
        assertEquals(ErrorClass.TRUNCATE, failed.errorClass());
        assertTrue(failed.error().getMessage().contains("64"), failed.error().getMessage());
        assertTrue(failed.error().getMessage().contains("16"), failed.error().getMessage());
    }

    @Test
    void shouldAnswerFromTheEngineEvenOnceTheMessagingActorStopped()
    {
        final ActorRef<Command> shortLived = testKit.spawn(MessagingBehavior.create(job.rank(1)));
        final TestProbe<Reply> requester = testKit.createTestProbe();
        final int messageTag = nextTag();
        shortLived.tell(new Receive(1, ByteBuffer.allocateDirect(8), 2, Datatype.INT, 0, messageTag,
            requester.getRef()));
        shortLived.tell(new Probe(2, 0, messageTag, requester.getRef()));
        requester.expectMessageClass(Probed.class, TIMEOUT);
        testKit.stop(shortLived);

        rank0.tell(new Send(3, ByteBuffer.allocateDirect(8), 2, Datatype.INT, 1, messageTag, requester.getRef()));
        final List<Reply> replies = List.of(requester.receiveMessage(TIMEOUT), requester.receiveMessage(TIMEOUT));
        assertTrue(replies.stream().anyMatch(reply -> reply instanceof Received received &&
            received.requestId() == 1), replies::toString);
    }

    @Test
    void shouldFailRequestsWaitingOnALostPeerNamingIt()
    {
        try (LocalJob pair = LocalJob.start(directory, 2, context -> { }))
        {
            final ActorRef<Command> survivor = testKit.spawn(MessagingBehavior.create(pair.rank(0)));
            final TestProbe<Reply> requester = testKit.createTestProbe();
            survivor.tell(new Receive(1, ByteBuffer.allocateDirect(8), 2, Datatype.INT, 1, 3, requester.getRef()));
            survivor.tell(new Probe(2, Communicator.ANY_SOURCE, 3, requester.getRef()));
            requester.expectMessageClass(Probed.class, TIMEOUT);

            pair.rank(1).runtime().crash();

            final Failed failed = requester.expectMessageClass(Failed.class, TIMEOUT);
            assertEquals(1, failed.requestId());
            assertEquals(ErrorClass.PROC_FAILED, failed.errorClass());
            final PeerLostException lost = assertInstanceOf(PeerLostException.class, failed.error());
            assertEquals(1, lost.peer());
            assertTrue(lost.getMessage().startsWith("rank 1 "), lost.getMessage());
            survivor.tell(new Send(3, ByteBuffer.allocateDirect(8), 2, Datatype.INT, 1, 3, requester.getRef()));
            final Failed late = requester.expectMessageClass(Failed.class, TIMEOUT);
            assertEquals(3, late.requestId());
            assertTrue(late.error().getMessage().startsWith("rank 1 "), late.error().getMessage());
            testKit.stop(survivor);
        }
    }

    private void expectSentAndArrived(final TestProbe<Reply> requester, final long sendId, final long subscriptionId)
    {
        final List<Reply> replies = List.of(requester.receiveMessage(TIMEOUT), requester.receiveMessage(TIMEOUT));
        assertTrue(replies.stream().anyMatch(reply -> reply instanceof Sent sent && sent.requestId() == sendId),
            replies::toString);
        assertTrue(replies.stream().anyMatch(reply -> reply instanceof MessageArrived arrived &&
            arrived.requestId() == subscriptionId), replies::toString);
    }

    private void awaitHeld(final TestProbe<Reply> requester, final int messageTag)
    {
        final long deadlineNs = System.nanoTime() + TIMEOUT.toNanos();
        while (true)
        {
            rank1.tell(new Probe(0, 0, messageTag, requester.getRef()));
            if (requester.expectMessageClass(Probed.class, TIMEOUT).envelope().isPresent())
            {
                return;
            }
            assertTrue(System.nanoTime() < deadlineNs, "the message with tag " + messageTag + " reached rank 1");
        }
    }

    private static void expectFailure(
        final TestProbe<Reply> requester, final long requestId, final ErrorClass errorClass, final String message)
    {
        final Failed failed = requester.expectMessageClass(Failed.class, TIMEOUT);
        assertEquals(requestId, failed.requestId());
        assertEquals(errorClass, failed.errorClass());
        assertEquals(message, failed.error().getMessage());
    }

    private int nextTag()
    {
        return ++tag;
    }

    private static DataBuffer dataBuffer(final TestMemory memory)
    {
        return memory.allocation() != null ? DataBuffer.of(memory.allocation()) : DataBuffer.of(memory.host());
    }
}
