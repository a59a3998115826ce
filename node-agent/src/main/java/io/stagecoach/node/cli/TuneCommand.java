package io.stagecoach.node.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;

import io.stagecoach.device.DeviceContext;
import io.stagecoach.device.DeviceKind;
import io.stagecoach.device.DeviceRuntime;
import io.stagecoach.pipeline.tune.DeviceCosts;
import io.stagecoach.pipeline.tune.PathModel;
import io.stagecoach.pipeline.tune.StageCostCache;
import io.stagecoach.rank.StagecoachContext;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code stagecoach tune}: measures the costs of this node's device that the path model chooses by (or reads them
 * from the cache, as a rank would), and prints them with the model's predictions and choices per message size.
 */
@Command(
    name = "tune",
    mixinStandardHelpOptions = true,
    description = {
        "Print the costs of this node's device that choose the path of each device message (eager, one-sided over " +
            "CUDA IPC, or staged through the stage pipeline) and the chunk of a staged one: measured once and " +
            "cached, as the first rank of the node that needs them does; then, for messages of 8 B to 64 MiB, the " +
            "one-way time the model predicts on each path and the path it picks between ranks of one node and " +
            "between nodes.",
        "The device is opened as a rank opens it: STAGECOACH_DEVICE (cuda, emulated), else CUDA where a GPU is " +
            "visible and the emulated device otherwise; the settings are a rank's (stagecoach.* properties, " +
            "STAGECOACH_* variables) unless the options give them.",
        "" },
    sortOptions = false)
final class TuneCommand implements Callable<Integer>
{
    @Spec
    private CommandSpec spec;

    @Option(names = "--remeasure", description = "Measure the costs even where the cache holds them, and cache them.")
    private boolean remeasure;

    @Option(names = "--json", description = "Print one JSON object instead of the text.")
    private boolean json;

    @Option(names = "--cache-dir", paramLabel = "DIR",
        description = "The folder the costs are cached in (default: tuning/ in the user's private cache folder, as " +
            "ranks use it).")
    private Path cacheDirectory;

    @Option(names = "--device", paramLabel = "cuda|emulated",
        description = "The device layer's back end, instead of STAGECOACH_DEVICE or the automatic choice.")
    private String deviceKind;

    @Option(names = "--eager-threshold", paramLabel = "BYTES",
        description = "The eager threshold, instead of stagecoach.eager.threshold.bytes (default 16384).")
    private Integer eagerThresholdBytes;

    @Option(names = "--slot-bytes", paramLabel = "BYTES",
        description = "The stage pipeline's slot, the largest chunk, instead of stagecoach.pipeline.slot.bytes " +
            "(default 1048576); the costs are cached per slot size.")
    private Long slotBytes;

    public Integer call()
    {
        final TuneSettings settings = settings();
        final DeviceContext deviceContext = new DeviceContext();
        if (deviceKind != null)
        {
            deviceContext.kind(DeviceKind.parse(deviceKind));
        }
        final Path folder = cacheDirectory != null ? cacheDirectory : StageCostCache.defaultFolder();
        try (DeviceRuntime runtime = DeviceRuntime.open(deviceContext))
        {
            final int device = runtime.defaultDevice();
            final DeviceCosts cached = remeasure ? null : StageCostCache.cached(folder, runtime, device,
                settings.slotBytes());
            final long startNs = System.nanoTime();
            final DeviceCosts costs = cached != null ? cached :
                StageCostCache.deviceCosts(runtime, device, settings.slotBytes(), folder, remeasure);
            final long measureMs = cached != null ? 0 : (System.nanoTime() - startNs) / 1_000_000;
            final PathModel model =
                new PathModel(costs, settings.slotBytes(), settings.chunkBytes(), settings.eagerThresholdBytes());
            final TuneReport report = new TuneReport(runtime.kind().name(), device, runtime.deviceName(device),
                StageCostCache.file(folder, runtime, device, settings.slotBytes()), cached == null, measureMs,
                settings, model);
            final PrintWriter out = spec.commandLine().getOut();
            if (json)
            {
                report.printJson(out);
            }
            else
            {
                report.printText(out);
            }
            out.flush();
            return 0;
        }
    }

    private TuneSettings settings()
    {
        final StagecoachContext context = new StagecoachContext();
        final int eager = eagerThresholdBytes != null ? eagerThresholdBytes : context.eagerThresholdBytes();
        final long slot = slotBytes != null ? slotBytes : context.pipelineSlotBytes();
        if (eager < 0)
        {
            throw new CommandLine.ParameterException(spec.commandLine(), "--eager-threshold must not be negative, " +
                "not " + eager);
        }
        if (slot < 4096 || slot > (1L << 30))
        {
            throw new CommandLine.ParameterException(spec.commandLine(), "--slot-bytes " + slot +
                " is outside [4096, " + (1L << 30) + "]");
        }
        final long chunk = context.chunkBytes() > slot ? 0 : context.chunkBytes();
        return new TuneSettings(eager, slot, chunk, context.devicePath(), context.deviceIpcThresholdBytes());
    }
}
