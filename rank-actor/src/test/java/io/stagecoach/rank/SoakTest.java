package io.stagecoach.rank;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.stagecoach.protocol.datatype.Datatype;
import org.agrona.BufferUtil;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import static io.stagecoach.rank.Communicator.ANY_SOURCE;
import static io.stagecoach.rank.Communicator.ANY_TAG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * 100,000 messages between 4 ranks of one JVM: sizes from 0 to 1 MiB (log-uniform, so eager and rendezvous both
 * run often), 8 tags, self-sends included, layouts drawn independently on each side from four datatypes of one
 * signature (contiguous doubles, a stride-2 vector, triples, a padded struct of two), every payload checksummed.
 * <p>
 * Phase A posts source-specific receives in plan order, with the exact tag or ANY_TAG at random: MPI's
 * non-overtaking rule then fixes which message each receive gets, and the test checks it exactly. After a
 * barrier, phase B receives with ANY_SOURCE and ANY_TAG, and with probe followed by a receive of what was probed:
 * the test checks per (source, tag) order in the order receives were posted (their completion order may differ).
 * Nothing may be lost, duplicated or corrupted. The seed is printed.
 */
class SoakTest
{
    private static final int RANKS = 4;
    private static final int MESSAGES = 100_000;
    private static final int MAX_DOUBLES = 128 * 1024;
    private static final int WINDOW = 8;
    private static final int TAGS = 8;
    private static final int BARRIER_TAG = 1000;
    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    @TempDir
    Path directory;

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void shouldDeliverEveryMessageOnceIntactAndInMpiOrder() throws Exception
    {
        final long seed = Long.getLong("soak.seed", System.nanoTime());
        System.out.println("SoakTest seed " + seed + " (rerun with -Dsoak.seed=" + seed + ")");
        final Plan plan = new Plan(seed);
        final long startNs = System.nanoTime();
        // Four ranks and their threads share the machine with the build: a client conductor that goes unscheduled for
        // a second must not get a live rank dropped, so the driver tolerates ten.
        try (LocalJob job = LocalJob.start(directory, RANKS, TimeUnit.SECONDS.toNanos(10), context -> { }))
        {
            final ExecutorService threads = Executors.newFixedThreadPool(RANKS);
            final List<Future<Worker>> workers = new ArrayList<>();
            for (int r = 0; r < RANKS; r++)
            {
                final Worker worker = new Worker(job.rank(r), plan, seed);
                workers.add(threads.submit(() -> worker.run()));
            }
            final BitSet delivered = new BitSet(MESSAGES);
            long bytes = 0;
            for (final Future<Worker> future : workers)
            {
                final Worker worker = future.get(4, TimeUnit.MINUTES);
                assertTrue(!worker.delivered.intersects(delivered), "a message was delivered twice");
                delivered.or(worker.delivered);
                bytes += worker.bytes.get();
            }
            threads.shutdown();
            assertEquals(MESSAGES, delivered.cardinality(), "messages delivered");
            System.out.printf("SoakTest: %d messages, %.1f MiB in %.1f s%n", MESSAGES, bytes / 1048576.0,
                (System.nanoTime() - startNs) / 1e9);
        }
    }

    /**
     * The same plan on every rank: message i goes from source[i] to destination[i] with tag[i], carries
     * doubles[i] doubles and belongs to phase A when i is below {@link #MESSAGES} / 2.
     */
    static final class Plan
    {
        final int[] source = new int[MESSAGES];
        final int[] destination = new int[MESSAGES];
        final int[] tag = new int[MESSAGES];
        final int[] doubles = new int[MESSAGES];

        Plan(final long seed)
        {
            final Random random = new Random(seed);
            for (int i = 0; i < MESSAGES; i++)
            {
                source[i] = random.nextInt(RANKS);
                destination[i] = random.nextInt(RANKS);
                tag[i] = random.nextInt(TAGS);
                doubles[i] = (int)Math.min(MAX_DOUBLES, Math.floor(Math.pow(2, random.nextDouble() * 17)) - 1);
            }
        }

        static boolean phaseA(final int message)
        {
            return message < MESSAGES / 2;
        }
    }

    /**
     * A layout of doubles: the datatype, the count for a number of doubles, and the bytes its buffer spans.
     */
    enum Layout
    {
        CONTIGUOUS(Datatype.DOUBLE, 1),
        STRIDED(Datatype.hvector(1, 1, 16, Datatype.DOUBLE).resized(0, 16).commit(), 1),
        TRIPLES(Datatype.contiguous(3, Datatype.DOUBLE).commit(), 3),
        PADDED_PAIRS(Datatype.struct(new int[]{ 1, 1 }, new long[]{ 0, 16 },
            new Datatype[]{ Datatype.DOUBLE, Datatype.DOUBLE }).resized(0, 32).commit(), 2);

        final Datatype type;
        final int doublesPerInstance;

        Layout(final Datatype type, final int doublesPerInstance)
        {
            this.type = type.commit();
            this.doublesPerInstance = doublesPerInstance;
        }

        long countFor(final int doubles)
        {
            return (doubles + doublesPerInstance - 1) / doublesPerInstance;
        }

        int spanBytes(final long count)
        {
            return (int)Math.max(8, type.compiled().dataHighBytes(count));
        }
    }

    /**
     * One rank's side of the soak: its sends in plan order, its receives, the checks.
     */
    static final class Worker
    {
        private final Communicator comm;
        private final Plan plan;
        private final Random random;
        private final int rank;
        private final BitSet delivered = new BitSet(MESSAGES);
        private final AtomicLong bytes = new AtomicLong();
        private final ArrayDeque<ByteBuffer> sendPool = new ArrayDeque<>();
        private final ArrayDeque<ByteBuffer> receivePool = new ArrayDeque<>();
        private final ArrayDeque<Outstanding> sends = new ArrayDeque<>();
        private final ArrayDeque<Outstanding> receives = new ArrayDeque<>();
        private final int[][] lastPerSourceAndTag = new int[RANKS][TAGS];
        private final ByteBuffer packed = ByteBuffer.allocateDirect(MAX_DOUBLES * 8);

        Worker(final Communicator comm, final Plan plan, final long seed)
        {
            this.comm = comm;
            this.plan = plan;
            this.rank = comm.rank();
            this.random = new Random(seed * 31 + rank);
            final int largestSpan = Layout.PADDED_PAIRS.spanBytes(Layout.PADDED_PAIRS.countFor(MAX_DOUBLES));
            for (int i = 0; i < WINDOW; i++)
            {
                sendPool.add(ByteBuffer.allocateDirect(largestSpan));
                receivePool.add(ByteBuffer.allocateDirect(largestSpan));
            }
            for (final int[] row : lastPerSourceAndTag)
            {
                java.util.Arrays.fill(row, -1);
            }
        }

        Worker run()
        {
            exchange(true);
            barrier();
            exchange(false);
            return this;
        }

        private void exchange(final boolean phaseA)
        {
            final int from = phaseA ? 0 : MESSAGES / 2;
            final int to = phaseA ? MESSAGES / 2 : MESSAGES;
            int nextSend = nextFrom(from, to, plan.source);
            int nextReceive = nextFrom(from, to, plan.destination);
            int remainingReceives = countTo(from, to);
            boolean probing = false;
            int idleRounds = 0;
            while (nextSend < to || !sends.isEmpty() || remainingReceives > 0)
            {
                final int before = remainingReceives + sends.size() + nextSend;
                while (nextSend < to && sends.size() < WINDOW)
                {
                    post(nextSend);
                    nextSend = next(nextSend, to, plan.source);
                }
                if (phaseA)
                {
                    while (nextReceive < to && receives.size() < WINDOW)
                    {
                        postIntended(nextReceive);
                        nextReceive = next(nextReceive, to, plan.destination);
                    }
                }
                else if (probing)
                {
                    final boolean received = receiveProbed();
                    remainingReceives -= received ? 1 : 0;
                    probing = received && random.nextInt(64) != 0;
                }
                else
                {
                    while (receives.size() < Math.min(WINDOW, remainingReceives))
                    {
                        postWildcard();
                    }
                }
                remainingReceives -= reapReceives();
                reapSends();
                if (!phaseA && !probing && receives.isEmpty() && remainingReceives > 0 && random.nextInt(4) == 0)
                {
                    probing = true;
                }
                idleRounds = before == remainingReceives + sends.size() + nextSend ? idleRounds + 1 : 0;
                idle(idleRounds);
            }
        }

        private static void idle(final int idleRounds)
        {
            if (idleRounds > 200)
            {
                java.util.concurrent.locks.LockSupport.parkNanos(20_000);
            }
            else if (idleRounds > 20)
            {
                Thread.yield();
            }
        }

        private void post(final int message)
        {
            final int doubles = plan.doubles[message];
            Layout layout = Layout.values()[random.nextInt(Layout.values().length)];
            if (doubles % layout.doublesPerInstance != 0)
            {
                layout = Layout.CONTIGUOUS;
            }
            final long count = layout.countFor(doubles);
            final ByteBuffer buffer = sendPool.poll();
            fillPacked(message, doubles);
            layout.type.compiled().unpack(BufferUtil.address(packed), count, 0, doubles * 8L,
                BufferUtil.address(buffer));
            sends.add(new Outstanding(
                comm.isend(buffer, count, layout.type, plan.destination[message], plan.tag[message]), message,
                buffer, layout));
        }

        private void postIntended(final int message)
        {
            final Layout layout = Layout.values()[random.nextInt(Layout.values().length)];
            final long count = layout.countFor(plan.doubles[message]);
            final int tag = random.nextBoolean() ? ANY_TAG : plan.tag[message];
            final ByteBuffer buffer = receivePool.poll();
            receives.add(new Outstanding(comm.irecv(buffer, count, layout.type, plan.source[message], tag), message,
                buffer, layout));
        }

        private void postWildcard()
        {
            final Layout layout = Layout.values()[random.nextInt(Layout.values().length)];
            final ByteBuffer buffer = receivePool.poll();
            receives.add(new Outstanding(
                comm.irecv(buffer, layout.countFor(MAX_DOUBLES), layout.type, ANY_SOURCE, ANY_TAG), -1, buffer,
                layout));
        }

        private boolean receiveProbed()
        {
            final java.util.Optional<Status> probed = comm.iprobe(ANY_SOURCE, ANY_TAG);
            if (probed.isEmpty())
            {
                return false;
            }
            final Status envelope = probed.get();
            final int doubles = (int)(envelope.byteCount() / 8);
            final Layout layout = Layout.values()[random.nextInt(Layout.values().length)];
            final ByteBuffer buffer = receivePool.poll();
            final Status status = comm.irecv(buffer, layout.countFor(doubles), layout.type, envelope.source(),
                envelope.tag()).await(TIMEOUT);
            check(-1, status, buffer, layout);
            receivePool.add(buffer);
            return true;
        }

        private int reapReceives()
        {
            int reaped = 0;
            for (int i = receives.size(); i > 0; i--)
            {
                final Outstanding receive = receives.peek();
                if (!receive.request.test())
                {
                    break;
                }
                receives.poll();
                check(receive.message, receive.request.await(TIMEOUT), receive.buffer, receive.layout);
                receivePool.add(receive.buffer);
                reaped++;
            }
            return reaped;
        }

        private void reapSends()
        {
            while (!sends.isEmpty() && sends.peek().request.test())
            {
                final Outstanding send = sends.poll();
                send.request.await(TIMEOUT);
                sendPool.add(send.buffer);
            }
        }

        private void check(final int intended, final Status status, final ByteBuffer buffer, final Layout layout)
        {
            final int doubles = (int)(status.byteCount() / 8);
            final long whole = layout.countFor(doubles);
            assertEquals(whole * layout.doublesPerInstance == doubles ? whole : Datatype.UNDEFINED, status.count(),
                () -> "count of " + status + " in " + layout);
            layout.type.compiled().pack(BufferUtil.address(buffer), layout.countFor(doubles), 0, doubles * 8L,
                BufferUtil.address(packed));
            final int message = doubles == 0 ? intended : (int)packed.getLong(0);
            if (doubles == 0 && intended < 0)
            {
                checkEmptyWildcard(status);
                return;
            }
            if (intended >= 0)
            {
                assertEquals(intended, message, "phase A receive got another message than MPI order dictates");
            }
            assertEquals(rank, plan.destination[message], "message " + message + " went astray");
            assertEquals(plan.source[message], status.source(), "source of message " + message);
            assertEquals(plan.tag[message], status.tag(), "tag of message " + message);
            assertEquals(plan.doubles[message], doubles, "size of message " + message);
            for (int i = 1; i < doubles; i++)
            {
                if (packed.getLong(i * 8) != mix(message, i))
                {
                    throw new AssertionError("message " + message + " corrupted at double " + i + " of " + doubles);
                }
            }
            if (!Plan.phaseA(message))
            {
                final int last = lastPerSourceAndTag[status.source()][status.tag()];
                assertTrue(message > last, "message " + message + " overtook " + last + " from rank " +
                    status.source() + " with tag " + status.tag());
                lastPerSourceAndTag[status.source()][status.tag()] = message;
            }
            deliver(message, doubles);
        }

        private void checkEmptyWildcard(final Status status)
        {
            final int source = status.source();
            final int tag = status.tag();
            final int last = lastPerSourceAndTag[source][tag];
            for (int message = Math.max(MESSAGES / 2, last + 1); message < MESSAGES; message++)
            {
                if (plan.source[message] == source && plan.destination[message] == rank && plan.tag[message] == tag)
                {
                    assertEquals(0, plan.doubles[message], "the next message from rank " + source + " with tag " +
                        tag + " is message " + message + ", not empty");
                    lastPerSourceAndTag[source][tag] = message;
                    deliver(message, 0);
                    return;
                }
            }
            throw new AssertionError("an empty message from rank " + source + " tag " + tag + " was not planned");
        }

        private void deliver(final int message, final int doubles)
        {
            assertTrue(!delivered.get(message), "message " + message + " delivered twice");
            delivered.set(message);
            bytes.addAndGet(doubles * 8L);
        }

        private void fillPacked(final int message, final int doubles)
        {
            if (doubles > 0)
            {
                packed.putLong(0, message);
            }
            for (int i = 1; i < doubles; i++)
            {
                packed.putLong(i * 8, mix(message, i));
            }
        }

        private void barrier()
        {
            final List<Request> requests = new ArrayList<>();
            for (int peer = 0; peer < RANKS; peer++)
            {
                if (peer != rank)
                {
                    requests.add(comm.irecv(ByteBuffer.allocateDirect(0), 0, Datatype.BYTE, peer, BARRIER_TAG));
                    requests.add(comm.isend(ByteBuffer.allocateDirect(0), 0, Datatype.BYTE, peer, BARRIER_TAG));
                }
            }
            for (final Status status : Request.waitAll(TIMEOUT, requests))
            {
                assertTrue(!status.isError(), status::toString);
            }
        }

        private int nextFrom(final int from, final int to, final int[] who)
        {
            return next(from - 1, to, who);
        }

        private int next(final int after, final int to, final int[] who)
        {
            int message = after + 1;
            while (message < to && who[message] != rank)
            {
                message++;
            }
            return message;
        }

        private int countTo(final int from, final int to)
        {
            int count = 0;
            for (int message = from; message < to; message++)
            {
                count += plan.destination[message] == rank ? 1 : 0;
            }
            return count;
        }
    }

    static long mix(final int message, final int index)
    {
        long z = ((long)message << 32 | index) + 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /**
     * A request in flight with what it needs for its check.
     */
    record Outstanding(Request request, int message, ByteBuffer buffer, Layout layout)
    {
    }
}
