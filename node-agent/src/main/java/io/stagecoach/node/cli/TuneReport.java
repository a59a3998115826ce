package io.stagecoach.node.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Locale;

import io.stagecoach.pipeline.tune.DeviceCosts;
import io.stagecoach.pipeline.tune.PathChoice;
import io.stagecoach.pipeline.tune.PathCosts;
import io.stagecoach.pipeline.tune.PathModel;
import io.stagecoach.pipeline.tune.StageCostProbe;
import io.stagecoach.pipeline.tune.StageCosts;
import io.stagecoach.pipeline.tune.TransferPath;

/**
 * What {@code stagecoach tune} prints: the device, where its costs came from, the settings the model runs with, the
 * measured costs and, for each of {@link #SIZES}, the one-way time the path model predicts on each path and the path
 * (and chunk) it picks between ranks of one node and between nodes; as text or as JSON.
 *
 * @param deviceKind the device layer's back end.
 * @param device     the device's ordinal.
 * @param deviceName its name.
 * @param cacheFile  the file the costs are cached in.
 * @param measured   whether the costs were measured now rather than read from the file.
 * @param measureMs  how long measuring them took, ms; 0 when read.
 * @param settings   the rank settings in effect (their defaults or the options').
 * @param model      the path model, with the costs.
 */
record TuneReport(
    String deviceKind,
    int device,
    String deviceName,
    Path cacheFile,
    boolean measured,
    long measureMs,
    TuneSettings settings,
    PathModel model)
{
    /** The message sizes of the table, packed bytes. */
    static final long[] SIZES = { 8, 1L << 10, 16L << 10, 256L << 10, 1L << 20, 4L << 20, 16L << 20, 64L << 20 };

    /**
     * Writes the report as text for a person.
     */
    void printText(final PrintWriter out)
    {
        final DeviceCosts costs = model.costs();
        final StageCosts stages = costs.stages();
        final PathCosts paths = costs.paths();
        out.printf("device       %s %d (%s)%n", deviceKind.toLowerCase(Locale.ROOT), device, deviceName);
        out.printf("costs        %s %s%n", measured ? "measured now in " + measureMs + " ms, cached in" :
            "read from", cacheFile);
        out.printf("settings     eager threshold %s, slot %s, chunk %s, device path %s, IPC threshold %s%n",
            size(settings.eagerThresholdBytes()), size(settings.slotBytes()),
            settings.chunkBytes() > 0 ? size(settings.chunkBytes()) : "chosen by the model", settings.devicePath(),
            settings.ipcThresholdBytes() < -1 ? "chosen by the model" :
                settings.ipcThresholdBytes() < 0 ? "the eager threshold" : size(settings.ipcThresholdBytes()));
        out.println();
        out.println("constants (measured on this device, except those marked assumed)");
        out.printf("  stage pack into pinned memory      %s%n", line(stages.packFixedNs(), stages.packBytesPerNs()));
        out.printf("  stage unpack out of pinned memory  %s%n",
            line(stages.unpackFixedNs(), stages.unpackBytesPerNs()));
        out.printf("  arena wire, per chunk              %s (assumed)%n", micros(StageCostProbe.ARENA_WIRE_FIXED_NS));
        out.printf("  stream wire, per chunk             %s (assumed) + 1 B per %s (two host copies)%n",
            micros(StageCostProbe.STREAM_WIRE_FIXED_NS), picos(costs.streamWireBytesPerNs()));
        out.printf("  device-to-device copy + event      %s%n", line(paths.copyFixedNs(), paths.copyBytesPerNs()));
        out.printf("  pack kernel, device to device      %s%n", line(paths.kernelFixedNs(), paths.kernelBytesPerNs()));
        out.printf("  inline pack into pinned, 8 B       %s%n", micros(paths.inlinePackFixedNs()));
        out.printf("  inline unpack out of pinned, 8 B   %s%n", micros(paths.inlineUnpackFixedNs()));
        out.printf("  message, one node / two nodes      %s / %s (assumed)%n", micros(PathModel.NODE_MESSAGE_NS),
            micros(PathModel.NETWORK_MESSAGE_NS));
        out.println();
        out.println("predicted one-way time (us) on each path, and the path the model picks");
        row(out, "size", "eager", "eager", "one-sided", "one-sided", "staged", "staged", "picked", "picked");
        row(out, "", "one node", "two nodes", "contig.", "scattered", "one node", "two nodes", "one node",
            "two nodes");
        for (final long bytes : SIZES)
        {
            final boolean eager = bytes <= model.eagerThresholdBytes();
            row(out, size(bytes), eager ? number(model.eagerNs(bytes, true)) : "-",
                eager ? number(model.eagerNs(bytes, false)) : "-", number(model.oneSidedNs(bytes, true)),
                number(model.oneSidedNs(bytes, false)), number(model.stagedNs(bytes, true)),
                number(model.stagedNs(bytes, false)), choice(model.choose(bytes, true)),
                choice(model.choose(bytes, false)));
        }
        out.println();
        out.println("eager only up to the eager threshold; one-sided only between ranks of one node; staged in the");
        out.println("chunks the model picks (or the setting's); the picks assume contiguous layouts.");
        final String overridden = settings.override();
        if (overridden != null)
        {
            out.println("settings override the model: " + overridden + ".");
        }
    }

    /**
     * Writes the report as one JSON object.
     */
    void printJson(final PrintWriter out)
    {
        final DeviceCosts costs = model.costs();
        final StageCosts stages = costs.stages();
        final PathCosts paths = costs.paths();
        final StringBuilder json = new StringBuilder(4096);
        json.append("{\"device\":{\"kind\":").append(string(deviceKind.toLowerCase(Locale.ROOT)))
            .append(",\"ordinal\":").append(device).append(",\"name\":").append(string(deviceName)).append('}');
        json.append(",\"cache\":{\"file\":").append(string(cacheFile.toString())).append(",\"measured\":")
            .append(measured).append(",\"measureMs\":").append(measureMs).append('}');
        json.append(",\"settings\":{\"eagerThresholdBytes\":").append(settings.eagerThresholdBytes())
            .append(",\"slotBytes\":").append(settings.slotBytes()).append(",\"chunkBytes\":")
            .append(settings.chunkBytes()).append(",\"devicePath\":").append(string(settings.devicePath()))
            .append(",\"ipcThresholdBytes\":").append(settings.ipcThresholdBytes()).append('}');
        json.append(",\"constants\":{");
        field(json, "packFixedNs", stages.packFixedNs()).append(',');
        field(json, "packBytesPerNs", stages.packBytesPerNs()).append(',');
        field(json, "unpackFixedNs", stages.unpackFixedNs()).append(',');
        field(json, "unpackBytesPerNs", stages.unpackBytesPerNs()).append(',');
        field(json, "arenaWireFixedNs", StageCostProbe.ARENA_WIRE_FIXED_NS).append(',');
        field(json, "streamWireFixedNs", StageCostProbe.STREAM_WIRE_FIXED_NS).append(',');
        field(json, "streamWireBytesPerNs", costs.streamWireBytesPerNs()).append(',');
        field(json, "copyFixedNs", paths.copyFixedNs()).append(',');
        field(json, "copyBytesPerNs", paths.copyBytesPerNs()).append(',');
        field(json, "kernelFixedNs", paths.kernelFixedNs()).append(',');
        field(json, "kernelBytesPerNs", paths.kernelBytesPerNs()).append(',');
        field(json, "inlinePackFixedNs", paths.inlinePackFixedNs()).append(',');
        field(json, "inlineUnpackFixedNs", paths.inlineUnpackFixedNs()).append(',');
        field(json, "nodeMessageNs", PathModel.NODE_MESSAGE_NS).append(',');
        field(json, "networkMessageNs", PathModel.NETWORK_MESSAGE_NS).append('}');
        json.append(",\"sizes\":[");
        for (int i = 0; i < SIZES.length; i++)
        {
            final long bytes = SIZES[i];
            final boolean eager = bytes <= model.eagerThresholdBytes();
            json.append(i == 0 ? "{" : ",{").append("\"bytes\":").append(bytes).append(',');
            field(json, "eagerOneNodeNs", eager ? model.eagerNs(bytes, true) : Double.NaN).append(',');
            field(json, "eagerTwoNodesNs", eager ? model.eagerNs(bytes, false) : Double.NaN).append(',');
            field(json, "oneSidedNs", model.oneSidedNs(bytes, true)).append(',');
            field(json, "oneSidedScatteredNs", model.oneSidedNs(bytes, false)).append(',');
            field(json, "stagedOneNodeNs", model.stagedNs(bytes, true)).append(',');
            json.append("\"stagedOneNodeChunkBytes\":").append(model.chunkBytes(bytes, true)).append(',');
            field(json, "stagedTwoNodesNs", model.stagedNs(bytes, false)).append(',');
            json.append("\"stagedTwoNodesChunkBytes\":").append(model.chunkBytes(bytes, false));
            json.append(",\"oneNode\":");
            choice(json, model.choose(bytes, true));
            json.append(",\"twoNodes\":");
            choice(json, model.choose(bytes, false));
            json.append('}');
        }
        json.append("]}");
        out.println(json);
    }

    private static void row(final PrintWriter out, final String... cells)
    {
        final String line = String.format(Locale.ROOT, "%8s %9s %9s %10s %10s %9s %9s  %-16s  %s", (Object[])cells);
        out.println(line.stripTrailing());
    }

    private static void choice(final StringBuilder json, final PathChoice choice)
    {
        json.append("{\"path\":").append(string(choice.path().label())).append(",\"chunkBytes\":")
            .append(choice.chunkBytes()).append(',');
        field(json, "predictedNs", choice.predictedNs()).append('}');
    }

    private static StringBuilder field(final StringBuilder json, final String name, final double value)
    {
        json.append('"').append(name).append("\":");
        return Double.isFinite(value) ? json.append(String.format(Locale.ROOT, "%.3f", value)) : json.append("null");
    }

    private static String string(final String value)
    {
        final StringBuilder quoted = new StringBuilder(value.length() + 2).append('"');
        for (int i = 0; i < value.length(); i++)
        {
            final char c = value.charAt(i);
            if (c == '"' || c == '\\')
            {
                quoted.append('\\').append(c);
            }
            else if (c < 0x20)
            {
                quoted.append(String.format(Locale.ROOT, "\\u%04x", (int)c));
            }
            else
            {
                quoted.append(c);
            }
        }
        return quoted.append('"').toString();
    }

    private static String choice(final PathChoice choice)
    {
        return choice.path() == TransferPath.STAGED ? "staged, " + size(choice.chunkBytes()) : choice.path().label();
    }

    private static String line(final double fixedNs, final double bytesPerNs)
    {
        return micros(fixedNs) + " + 1 B per " + picos(bytesPerNs);
    }

    private static String micros(final double ns)
    {
        return String.format(Locale.ROOT, "%.2f us", ns / 1_000);
    }

    private static String picos(final double bytesPerNs)
    {
        return String.format(Locale.ROOT, "%.3g ps (%.4g GB/s)", 1_000 / bytesPerNs, bytesPerNs);
    }

    private static String number(final double ns)
    {
        return String.format(Locale.ROOT, "%.1f", ns / 1_000);
    }

    /**
     * @return a byte count as the docs write it: 8 B, 16 KiB, 4 MiB.
     */
    static String size(final long bytes)
    {
        if (bytes >= 1L << 20 && bytes % (1L << 20) == 0)
        {
            return (bytes >> 20) + " MiB";
        }
        if (bytes >= 1L << 10 && bytes % (1L << 10) == 0)
        {
            return (bytes >> 10) + " KiB";
        }
        return bytes + " B";
    }
}
