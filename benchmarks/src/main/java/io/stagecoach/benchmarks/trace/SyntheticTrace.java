package io.stagecoach.benchmarks.trace;

import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;

import io.stagecoach.pipeline.trace.ChromeTraceExport;
import io.stagecoach.pipeline.trace.Stage;
import io.stagecoach.pipeline.trace.StageTraceContext;
import io.stagecoach.pipeline.trace.StageTracer;
import io.stagecoach.pipeline.trace.StageTracing;
import io.stagecoach.protocol.host.PrivateDirectory;

/**
 * Writes the Chrome trace of two modelled device-to-device transfers from rank 0 to rank 1, recorded through the
 * stage trace API as the pipeline records (two ranks' rings, their files, the launcher's merge), for the picture
 * script and Perfetto before or without the pipeline. The times are a model, not a measurement: per chunk of 256
 * KiB, PACK {@value #PACK_NS} ns, D2H and H2D {@value #COPY_NS} ns (about the H200 machine's 53 GB/s pinned copies),
 * WIRE {@value #WIRE_NS} ns with two chunks in flight, UNPACK {@value #UNPACK_NS} ns, each stage a serial resource
 * that starts a chunk {@value #ISSUE_NS} ns after both the chunk's previous stage and the stage's previous chunk
 * ended, and up to 10% of seeded jitter.
 * <p>
 * Usage: {@code SyntheticTrace OUT.json [messageBytes] [chunkBytes]} (defaults 4 MiB and 256 KiB).
 */
public final class SyntheticTrace
{
    static final long PACK_NS = 3_000;
    static final long COPY_NS = 5_000;
    static final long WIRE_NS = 9_000;
    static final long UNPACK_NS = 3_000;
    static final long ISSUE_NS = 500;
    static final int TRANSFERS = 2;

    private static final long[] STAGE_NS = { PACK_NS, COPY_NS, WIRE_NS, COPY_NS, UNPACK_NS };
    private static final int[] IN_FLIGHT = { 1, 1, 2, 1, 1 };
    private static final long TRANSFER_GAP_NS = 20_000;

    private SyntheticTrace()
    {
    }

    /**
     * @param args the output file, then message and chunk bytes, both optional.
     * @throws IOException when the trace cannot be written.
     */
    public static void main(final String[] args) throws IOException
    {
        final long messageBytes = args.length > 1 ? Long.parseLong(args[1]) : 4L << 20;
        final long chunkBytes = args.length > 2 ? Long.parseLong(args[2]) : 256L << 10;
        final ChromeTraceExport.Summary summary = write(Path.of(args[0]), messageBytes, chunkBytes);
        System.out.println("wrote " + summary.events() + " stage events of " + summary.ranks() + " ranks to " +
            args[0]);
    }

    /**
     * @param file         the trace to write.
     * @param messageBytes of each transfer.
     * @param chunkBytes   of each chunk.
     * @return what the trace holds.
     * @throws IOException when the trace cannot be written.
     */
    public static ChromeTraceExport.Summary write(final Path file, final long messageBytes, final long chunkBytes)
        throws IOException
    {
        final Path folder = PrivateDirectory.createExclusive(
            Path.of(System.getProperty("java.io.tmpdir")), PrivateDirectory.PREFIX + "synthetic-trace-");
        try
        {
            final StageTracing sender = StageTracing.start(new StageTraceContext().rank(0).directory(folder));
            final StageTracing receiver = StageTracing.start(new StageTraceContext().rank(1).directory(folder));
            record(sender.tracer(), receiver.tracer(), messageBytes, chunkBytes);
            sender.close();
            receiver.close();
            try (Writer out = Files.newBufferedWriter(file, StandardCharsets.UTF_8))
            {
                return ChromeTraceExport.write(List.of(sender.file(), receiver.file()), out,
                    Map.of("program", SyntheticTrace.class.getName() + " (modelled times, not measured)"));
            }
        }
        finally
        {
            PrivateDirectory.deleteTree(folder);
        }
    }

    private static void record(
        final StageTracer sender, final StageTracer receiver, final long messageBytes, final long chunkBytes)
    {
        final Random random = new Random(42);
        final int chunks = (int)((messageBytes + chunkBytes - 1) / chunkBytes);
        long startNs = System.nanoTime();
        for (int transfer = 1; transfer <= TRANSFERS; transfer++)
        {
            final long[][] ends = schedule(random, chunks, startNs);
            for (int chunk = 0; chunk < chunks; chunk++)
            {
                final long bytes = Math.min(chunkBytes, messageBytes - chunk * chunkBytes);
                recordChunk(sender, receiver, transfer, chunk, ends, bytes);
            }
            startNs = ends[chunks - 1][Stage.PIPELINE_COUNT - 1] + TRANSFER_GAP_NS;
        }
    }

    /**
     * @return for each chunk and stage, when it starts ({@code [chunk][stage + COUNT]}) and ends ({@code
     * [chunk][stage]}).
     */
    private static long[][] schedule(final Random random, final int chunks, final long startNs)
    {
        final long[][] times = new long[chunks][2 * Stage.PIPELINE_COUNT];
        final long[][] laneFreeNs = new long[Stage.PIPELINE_COUNT][];
        for (int stage = 0; stage < Stage.PIPELINE_COUNT; stage++)
        {
            laneFreeNs[stage] = new long[IN_FLIGHT[stage]];
            Arrays.fill(laneFreeNs[stage], startNs);
        }
        for (int chunk = 0; chunk < chunks; chunk++)
        {
            long readyNs = startNs;
            for (int stage = 0; stage < Stage.PIPELINE_COUNT; stage++)
            {
                final int lane = earliest(laneFreeNs[stage]);
                final long begin = Math.max(readyNs, laneFreeNs[stage][lane]) + ISSUE_NS;
                final long end = begin + STAGE_NS[stage] + (long)(STAGE_NS[stage] * 0.1 * random.nextDouble());
                times[chunk][Stage.PIPELINE_COUNT + stage] = begin;
                times[chunk][stage] = end;
                laneFreeNs[stage][lane] = end;
                readyNs = end;
            }
        }
        return times;
    }

    private static int earliest(final long[] laneFreeNs)
    {
        int earliest = 0;
        for (int lane = 1; lane < laneFreeNs.length; lane++)
        {
            earliest = laneFreeNs[lane] < laneFreeNs[earliest] ? lane : earliest;
        }
        return earliest;
    }

    private static void recordChunk(
        final StageTracer sender,
        final StageTracer receiver,
        final int transfer,
        final int chunk,
        final long[][] times,
        final long bytes)
    {
        for (int ordinal = 0; ordinal < Stage.PIPELINE_COUNT; ordinal++)
        {
            final Stage stage = Stage.of(ordinal);
            final long begin = times[chunk][Stage.PIPELINE_COUNT + stage.ordinal()];
            final long end = times[chunk][stage.ordinal()];
            if (stage.ordinal() <= Stage.WIRE.ordinal())
            {
                sender.record(transfer, chunk, stage, begin, end, bytes, 0);
            }
            if (stage.ordinal() >= Stage.WIRE.ordinal())
            {
                receiver.record(transfer, chunk, stage, begin + (Stage.WIRE == stage ? ISSUE_NS : 0), end, bytes, 0);
            }
        }
    }
}
