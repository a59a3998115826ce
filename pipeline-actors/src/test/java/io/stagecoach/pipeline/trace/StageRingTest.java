package io.stagecoach.pipeline.trace;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Timeout(60)
class StageRingTest
{
    private static final int CAPACITY = StageRing.MIN_CAPACITY_BYTES;

    @Test
    void shouldDrainEveryFieldOfARecord()
    {
        final StageRing ring = new StageRing(3, CAPACITY);
        ring.record(1L << 40, 7, Stage.H2D, 1_000, 2_500, 4L << 30, 2);

        final List<String> seen = new ArrayList<>();
        assertEquals(1, ring.drain(record -> seen.add(record.rank() + " " + record.transferId() + " " +
            record.chunk() + " " + record.stage() + " " + record.startNs() + " " + record.endNs() + " " +
            record.bytes() + " " + record.device()), 10));

        assertEquals(List.of("3 1099511627776 7 H2D 1000 2500 4294967296 2"), seen);
        assertEquals(0, ring.drain(record -> seen.add("more"), 10));
    }

    @Test
    void shouldDropRecordsWhenFullAndCountThem()
    {
        final StageRing ring = new StageRing(0, CAPACITY);
        final int fits = CAPACITY / StageRing.RECORD_SLOT_BYTES;
        for (int i = 0; i < fits + 100; i++)
        {
            ring.record(1, i, Stage.WIRE, i, i + 1, 64, 0);
        }

        assertEquals(100, ring.droppedRecords());
        final int[] next = { 0 };
        assertEquals(fits, ring.drain(record -> assertEquals(next[0]++, record.chunk()), Integer.MAX_VALUE));
        ring.record(1, 0, Stage.WIRE, 0, 1, 64, 0);
        assertEquals(1, ring.drain(record -> { }, 10), "room again once drained");
        assertEquals(100, ring.droppedRecords());
    }

    @Test
    void shouldRecordAndDrainAMillionRecordsWithoutAllocating()
    {
        final StageRing ring = new StageRing(0, 1 << 20);
        final long[] sum = { 0 };
        final StageRecordHandler handler = record -> sum[0] += record.bytes();
        recordAndDrain(ring, handler, 200_000);
        final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
        final long thread = Thread.currentThread().getId();
        assertTrue(threads.isThreadAllocatedMemorySupported() && threads.isThreadAllocatedMemoryEnabled());

        long allocated = Long.MAX_VALUE;
        int rounds = 0;
        while (allocated != 0 && rounds < 3)
        {
            rounds++;
            final long before = threads.getThreadAllocatedBytes(thread);
            recordAndDrain(ring, handler, 1_000_000);
            allocated = Math.min(allocated, threads.getThreadAllocatedBytes(thread) - before);
        }

        assertEquals(0, allocated, "bytes allocated for a million records, the least of " + rounds + " rounds " +
            "(a deoptimisation that materialises a scalar-replaced object can allocate a few hundred bytes once; a " +
            "record that allocates would show millions every round)");
        assertEquals((200_000L + rounds * 1_000_000L) * 64, sum[0]);
        assertEquals(0, ring.droppedRecords());
    }

    @Test
    void shouldLoseNothingFromConcurrentProducersWithinCapacity() throws InterruptedException
    {
        final int producers = 4;
        final int perProducer = 20_000;
        final StageRing ring = new StageRing(0, 1 << 23);
        assertTrue(producers * perProducer * StageRing.RECORD_SLOT_BYTES <= ring.capacityBytes());
        final CountDownLatch start = new CountDownLatch(1);
        final List<Thread> threads = new ArrayList<>();
        for (int p = 0; p < producers; p++)
        {
            final int producer = p;
            final Thread thread = new Thread(() -> produce(ring, start, producer, perProducer), "producer-" + p);
            thread.start();
            threads.add(thread);
        }
        final BitSet seen = new BitSet(producers * perProducer);
        start.countDown();
        final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (seen.cardinality() < producers * perProducer && System.nanoTime() - deadlineNs < 0)
        {
            ring.drain(record -> markOnce(seen, record, perProducer), 1000);
        }
        for (final Thread thread : threads)
        {
            thread.join(TimeUnit.SECONDS.toMillis(10));
            assertFalse(thread.isAlive(), "a producer did not finish within 10 s");
        }

        assertEquals(producers * perProducer, seen.cardinality(), "records drained within 30 s");
        assertEquals(0, ring.droppedRecords());
        assertEquals(0, ring.drain(record -> { }, 10));
    }

    @Test
    void shouldRefuseACapacityThatIsNotAPowerOfTwoWithinItsLimits()
    {
        assertEquals("stage trace ring of 100000 bytes is not a power of two in [65536, 1073741824]",
            assertThrows(IllegalArgumentException.class, () -> new StageRing(0, 100_000)).getMessage());
        assertThrows(IllegalArgumentException.class, () -> new StageRing(0, 32 * 1024));
    }

    @Test
    void shouldDoNothingWhenOff()
    {
        assertFalse(StageTracer.OFF.isEnabled());
        StageTracer.OFF.record(1, 2, Stage.PACK, 3, 4, 5, 6);
        assertSame(StageTracer.OFF, StageTracing.start(new StageTraceContext().rank(0)).tracer());
    }

    private static void recordAndDrain(final StageRing ring, final StageRecordHandler handler, final int records)
    {
        for (int i = 0; i < records; i += 1000)
        {
            for (int j = 0; j < 1000; j++)
            {
                ring.record(i, j, Stage.PACK, i, i + j, 64, 0);
            }
            ring.drain(handler, 1000);
        }
    }

    private static void produce(final StageRing ring, final CountDownLatch start, final int producer, final int count)
    {
        try
        {
            if (!start.await(10, TimeUnit.SECONDS))
            {
                throw new IllegalStateException("not started within 10 s");
            }
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            return;
        }
        for (int i = 0; i < count; i++)
        {
            ring.record(producer, i, Stage.of(i % Stage.COUNT), i, i + 1, i, producer);
        }
    }

    private static void markOnce(final BitSet seen, final StageRecord record, final int perProducer)
    {
        final int bit = (int)record.transferId() * perProducer + record.chunk();
        assertFalse(seen.get(bit), () -> "seen twice: " + record);
        assertEquals(record.stage(), Stage.of(record.chunk() % Stage.COUNT));
        seen.set(bit);
    }
}
