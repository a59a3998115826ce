package io.stagecoach.node.launch;

import io.stagecoach.pipeline.trace.Stage;
import io.stagecoach.pipeline.trace.StageTraceContext;
import io.stagecoach.pipeline.trace.StageTracer;
import io.stagecoach.pipeline.trace.StageTracing;
import io.stagecoach.rank.StagecoachContext;

/**
 * Records the stages of a pipelined transfer of {@code args[0]} chunks through the stage trace API, as the sending
 * (rank 0: PACK, D2H, WIRE) or receiving side (other ranks: WIRE, H2D, UNPACK), with its trace folder from the
 * rank's settings ({@code STAGECOACH_TRACE_DIR}), then closes the trace and exits with status {@code args[1]} (0 when
 * absent). Prints {@code TRACE DIR <folder>}, or {@code NO TRACE} without a folder.
 */
public final class TracingRank
{
    private static final long CHUNK_BYTES = 256 * 1024;
    private static final long STEP_NS = 10_000;

    private TracingRank()
    {
    }

    public static void main(final String[] args)
    {
        final StagecoachContext settings = new StagecoachContext().useRendezvous(false).conclude();
        System.out.println(null == settings.traceDirectory() ? "NO TRACE" : "TRACE DIR " + settings.traceDirectory());
        final StageTracing tracing = StageTracing.start(new StageTraceContext().rank(settings.rank())
            .directory(settings.traceDirectory()).ringCapacityBytes(settings.traceRingBytes()));
        record(tracing.tracer(), settings.rank() == 0, Integer.parseInt(args[0]));
        tracing.close();
        System.exit(args.length > 1 ? Integer.parseInt(args[1]) : 0);
    }

    private static void record(final StageTracer tracer, final boolean sender, final int chunks)
    {
        final Stage[] stages = sender ? new Stage[]{ Stage.PACK, Stage.D2H, Stage.WIRE } :
            new Stage[]{ Stage.WIRE, Stage.H2D, Stage.UNPACK };
        final long baseNs = System.nanoTime() + (sender ? 0 : 2 * STEP_NS);
        for (int chunk = 0; chunk < chunks; chunk++)
        {
            for (int step = 0; step < stages.length; step++)
            {
                final long startNs = baseNs + (chunk + step) * STEP_NS;
                tracer.record(1, chunk, stages[step], startNs, startNs + STEP_NS - 1_000, CHUNK_BYTES, 0);
            }
        }
    }
}
