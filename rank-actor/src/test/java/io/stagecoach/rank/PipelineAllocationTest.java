package io.stagecoach.rank;

import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import com.sun.management.ThreadMXBean;
import io.stagecoach.device.DeviceContext;
import io.stagecoach.device.DeviceKind;
import io.stagecoach.device.DeviceRuntime;
import io.stagecoach.device.TestMemory;
import io.stagecoach.protocol.datatype.Datatype;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * What the engine allocates per chunk of a large device-to-device message, on both wires, in steady state (after a
 * warm-up), measured with {@link ThreadMXBean#getThreadAllocatedBytes(long[])} on every thread that drives an engine:
 * the test thread (it runs the duty cycles of the rank whose request it awaits) and both ranks' progress threads.
 * Per chunk is the difference between transfers of {@value #LONG_CHUNKS} and {@value #SHORT_CHUNKS} chunks, divided by
 * the chunks between them, so that what a transfer costs once (its requests, its transfer objects, the spawn of its
 * stage actors) drops out.
 * <p>
 * Counted: everything those threads allocate per chunk, the engine's code and Aeron's client calls on them included,
 * and the envelope and mailbox node Pekko allocates for each message the engine's thread tells a stage actor
 * (chunkSent on the sender, chunkArrived on the receiver: two per chunk), which this test measures on its own and
 * takes off. Not bounded, only printed: the stage actors' threads (Pekko's dispatchers: what the actors allocate, the
 * nodes of the engine's command queue they offer to, Pekko's receive and the emulated device's kernel launches, which
 * queue their work as objects), the device's completion thread (an envelope per completion it tells an actor) and the
 * emulated device's stream threads. Not counted at all: Aeron's conductor and media driver.
 */
class PipelineAllocationTest
{
    private static final int CHUNK_BYTES = 4096;
    private static final int SHORT_CHUNKS = 256;
    private static final int LONG_CHUNKS = 1280;
    private static final int ROUNDS = 8;
    private static final int WARM_UP_ROUNDS = 12;
    private static final int TELLS_PER_CHUNK = 2;
    private static final long OUR_BYTES_PER_CHUNK = 16;
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    @TempDir
    static Path directory;

    private static DeviceRuntime device;
    private static ThreadMXBean threads;
    private static long bytesPerTell;

    @BeforeAll
    static void open()
    {
        threads = (ThreadMXBean)ManagementFactory.getThreadMXBean();
        assumeTrue(threads.isThreadAllocatedMemorySupported(), "the JVM counts the bytes a thread allocates");
        threads.setThreadAllocatedMemoryEnabled(true);
        device = DeviceRuntime.open(new DeviceContext().kind(DeviceKind.EMULATED).emulatedDeviceCount(2)
            .emulatedMemoryBytes(128L << 20));
        bytesPerTell = measureTell();
    }

    @AfterAll
    static void close()
    {
        if (device != null)
        {
            device.close();
        }
    }

    @ParameterizedTest(name = "{0} wire")
    @ValueSource(strings = { "arena", "stream" })
    void shouldAllocateAlmostNothingPerChunkOnTheThreadsThatDriveTheEngine(final String wire)
    {
        try (LocalJob job = LocalJob.start(directory, 2, context -> context.deviceRuntime(device)
            .chunkBytes(CHUNK_BYTES).pipelineWire(wire).devicePath("staged"));
             TestMemory from = TestMemory.device(device, 0, LONG_CHUNKS * CHUNK_BYTES);
             TestMemory to = TestMemory.device(device, 1, LONG_CHUNKS * CHUNK_BYTES))
        {
            final long[] engineThreads = engineThreads();
            for (int round = 0; round < WARM_UP_ROUNDS; round++)
            {
                transfer(job, from, to, SHORT_CHUNKS);
                transfer(job, from, to, LONG_CHUNKS);
            }
            final long[][] groups = {
                engineThreads, threadsNamed("dispatcher"), threadsNamed("stagecoach-device-completions"),
                threadsNamed("stagecoach-emulated-stream-") };
            final long[] shortBytes = new long[groups.length];
            final long[] longBytes = new long[groups.length];
            for (int round = 0; round < ROUNDS; round++)
            {
                final long[] beforeShort = allocated(groups);
                transfer(job, from, to, SHORT_CHUNKS);
                final long[] beforeLong = allocated(groups);
                transfer(job, from, to, LONG_CHUNKS);
                final long[] after = allocated(groups);
                for (int i = 0; i < groups.length; i++)
                {
                    shortBytes[i] += beforeLong[i] - beforeShort[i];
                    longBytes[i] += after[i] - beforeLong[i];
                }
            }
            final double perChunk = perChunk(shortBytes[0], longBytes[0]);
            final double ours = perChunk - TELLS_PER_CHUNK * bytesPerTell;
            System.out.printf("PipelineAllocationTest %s wire: %.1f bytes per chunk on the engine threads, of which " +
                "%d are Pekko's (%d tells of %d bytes), %.1f the engine's; %.0f bytes per transfer%n", wire, perChunk,
                TELLS_PER_CHUNK * bytesPerTell, TELLS_PER_CHUNK, bytesPerTell, ours,
                (double)shortBytes[0] / ROUNDS - perChunk * SHORT_CHUNKS);
            System.out.printf("PipelineAllocationTest %s wire, not bounded: %.1f bytes per chunk on the stage actors' " +
                "threads (emulated kernel launches included), %.1f on the device's completion thread, %.1f on the " +
                "emulated device's stream threads%n", wire, perChunk(shortBytes[1], longBytes[1]),
                perChunk(shortBytes[2], longBytes[2]), perChunk(shortBytes[3], longBytes[3]));
            assertTrue(ours <= OUR_BYTES_PER_CHUNK, String.format("the engine allocates %.1f bytes per chunk of the %s " +
                "wire beyond Pekko's envelopes, more than %d", ours, wire, OUR_BYTES_PER_CHUNK));
        }
    }

    private static double perChunk(final long shortBytes, final long longBytes)
    {
        return (double)(longBytes - shortBytes) / (ROUNDS * (LONG_CHUNKS - SHORT_CHUNKS));
    }

    private static void transfer(final LocalJob job, final TestMemory from, final TestMemory to, final int chunks)
    {
        final int lengthBytes = chunks * CHUNK_BYTES;
        final Request receive = job.rank(1).irecv(to.address(), lengthBytes, lengthBytes, Datatype.BYTE, 0, 1);
        final Request send = job.rank(0).isend(from.address(), lengthBytes, lengthBytes, Datatype.BYTE, 1, 1);
        assertEquals(lengthBytes, receive.await(TIMEOUT).count(), "bytes received");
        send.await(TIMEOUT);
    }

    /**
     * @return ids of this thread and of the progress threads of every rank in this JVM (a rank of an earlier test that
     * is still there allocates nothing idle).
     */
    private static long[] engineThreads()
    {
        final List<Thread> found = new ArrayList<>();
        found.add(Thread.currentThread());
        for (final Thread thread : Thread.getAllStackTraces().keySet())
        {
            if (thread.getName().startsWith("stagecoach-progress-"))
            {
                found.add(thread);
            }
        }
        assertTrue(found.size() >= 3, () -> "this thread and the two ranks' progress threads: " + found);
        return found.stream().mapToLong(Thread::getId).toArray();
    }

    /**
     * @return ids of the live threads whose names contain the text (the ranks' dispatchers run the stage actors).
     */
    private static long[] threadsNamed(final String text)
    {
        return Thread.getAllStackTraces().keySet().stream().filter(thread -> thread.getName().contains(text))
            .mapToLong(Thread::getId).toArray();
    }

    private static long[] allocated(final long[][] groups)
    {
        final long[] bytes = new long[groups.length];
        for (int i = 0; i < groups.length; i++)
        {
            bytes[i] = allocated(groups[i]);
        }
        return bytes;
    }

    private static long allocated(final long[] ids)
    {
        long total = 0;
        for (final long bytes : threads.getThreadAllocatedBytes(ids))
        {
            total += bytes;
        }
        return total;
    }

    /**
     * @return bytes this thread allocates per message it tells an actor (Pekko's envelope and mailbox node), in steady
     * state.
     */
    private static long measureTell()
    {
        final ActorTestKit testKit = ActorTestKit.create();
        try
        {
            final ActorRef<Object> actor = testKit.spawn(Behaviors.ignore());
            final Object message = new Object();
            final long[] self = { Thread.currentThread().getId() };
            for (int i = 0; i < 200_000; i++)
            {
                actor.tell(message);
            }
            final int tells = 100_000;
            final long before = threads.getThreadAllocatedBytes(self)[0];
            for (int i = 0; i < tells; i++)
            {
                actor.tell(message);
            }
            return Math.round((double)(threads.getThreadAllocatedBytes(self)[0] - before) / tells);
        }
        finally
        {
            testKit.shutdownTestKit();
        }
    }
}
