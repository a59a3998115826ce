package io.stagecoach.benchmarks.trace;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import io.stagecoach.pipeline.trace.Stage;
import io.stagecoach.pipeline.trace.StageRecordHandler;
import io.stagecoach.pipeline.trace.StageRing;
import io.stagecoach.pipeline.trace.StageTracer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * What recording one stage costs the thread that records it: {@link StageTracer#OFF} (tracing off), the guarded
 * call a call site makes when it takes its timestamps only for the trace, the ring alone, the ring with the two
 * clock reads of a real record, and the ring from two threads at once. A thread drains the ring meanwhile; at these
 * rates (tens of millions of records a second) it cannot keep up, and the tear-down prints how many records were
 * dropped, which are cheaper than kept ones. The paced pair records once per {@value #PACE_TOKENS} tokens of
 * {@link Blackhole#consumeCPU} (about a microsecond, near a pipeline's rate of records), with tracing off and on:
 * their difference is the cost of a kept record, clock reads included.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = { "--add-opens", "java.base/jdk.internal.misc=ALL-UNNAMED" })
public class StageTracerBenchmark
{
    private static final int RING_BYTES = 8 * 1024 * 1024;
    private static final long CHUNK_BYTES = 256 * 1024;
    static final long PACE_TOKENS = 400;

    private final StageTracer off = StageTracer.OFF;
    private StageRing ring;
    private Thread drainer;
    private volatile boolean draining;

    /**
     * The chunk number each recording thread counts up.
     */
    @State(Scope.Thread)
    public static class Chunks
    {
        int chunk;
    }

    /**
     * Creates the ring and starts draining it.
     */
    @Setup(Level.Trial)
    public void start()
    {
        ring = new StageRing(0, RING_BYTES);
        draining = true;
        drainer = new Thread(this::drain, "stage-trace-drainer");
        drainer.setDaemon(true);
        drainer.start();
    }

    /**
     * Stops draining and prints what was dropped.
     *
     * @throws InterruptedException when interrupted while waiting for the drainer.
     */
    @TearDown(Level.Trial)
    public void stop() throws InterruptedException
    {
        draining = false;
        drainer.join(TimeUnit.SECONDS.toMillis(10));
        System.out.println("records dropped: " + ring.droppedRecords());
    }

    /**
     * @param chunks this thread's chunk number.
     */
    @Benchmark
    public void off(final Chunks chunks)
    {
        off.record(1, chunks.chunk++, Stage.PACK, 1_000, 2_000, CHUNK_BYTES, 0);
    }

    /**
     * @param chunks this thread's chunk number.
     */
    @Benchmark
    public void offGuardedWithClock(final Chunks chunks)
    {
        final long startNs = off.isEnabled() ? System.nanoTime() : 0;
        if (off.isEnabled())
        {
            off.record(1, chunks.chunk++, Stage.PACK, startNs, System.nanoTime(), CHUNK_BYTES, 0);
        }
    }

    /**
     * @param chunks this thread's chunk number.
     */
    @Benchmark
    public void ring(final Chunks chunks)
    {
        ring.record(1, chunks.chunk++, Stage.PACK, 1_000, 2_000, CHUNK_BYTES, 0);
    }

    /**
     * @param chunks this thread's chunk number.
     */
    @Benchmark
    public void ringWithClock(final Chunks chunks)
    {
        final long startNs = System.nanoTime();
        ring.record(1, chunks.chunk++, Stage.PACK, startNs, System.nanoTime(), CHUNK_BYTES, 0);
    }

    /**
     * @return two clock reads, the part of {@link #ringWithClock} that is not the ring.
     */
    @Benchmark
    public long clockPair()
    {
        return System.nanoTime() + System.nanoTime();
    }

    /**
     * @param chunks this thread's chunk number.
     */
    @Benchmark
    @Threads(2)
    public void ringTwoThreads(final Chunks chunks)
    {
        ring.record(1, chunks.chunk++, Stage.PACK, 1_000, 2_000, CHUNK_BYTES, 0);
    }

    /**
     * @param chunks this thread's chunk number.
     */
    @Benchmark
    public void pacedOff(final Chunks chunks)
    {
        Blackhole.consumeCPU(PACE_TOKENS);
        offGuardedWithClock(chunks);
    }

    /**
     * @param chunks this thread's chunk number.
     */
    @Benchmark
    public void pacedRingWithClock(final Chunks chunks)
    {
        Blackhole.consumeCPU(PACE_TOKENS);
        ringWithClock(chunks);
    }

    private void drain()
    {
        final StageRecordHandler discard = record -> { };
        while (draining)
        {
            if (0 == ring.drain(discard, 4096))
            {
                LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(50));
            }
        }
    }
}
