package io.stagecoach.examples.lbm;

import java.io.PrintStream;
import java.util.List;
import java.util.Locale;

/**
 * What rank 0 prints: a title naming the run, a table with a row per variant, and progress on stderr.
 */
final class LbmReport
{
    private static final long PROGRESS_EVERY_NS = 2_000_000_000L;
    private static final String ROW = "%-10s %10s %9s %7s %10s %11s %11s %9s  %s";

    private final PrintStream out;
    private final PrintStream err;
    private final boolean root;
    private final long startNs = System.nanoTime();
    private long lastProgressNs;

    LbmReport(final PrintStream out, final PrintStream err, final boolean root)
    {
        this.out = out;
        this.err = err;
        this.root = root;
    }

    void title(final String... lines)
    {
        for (final String line : lines)
        {
            print("# " + line);
        }
        print(String.format(Locale.ROOT, ROW, "# Variant", "MLUPS", "ms/step", "comm %", "vs Default", "mass drift",
            "phase/cell", "max |u|", "checksum"));
    }

    void row(final VariantResult result, final VariantResult reference)
    {
        final String speedup = reference == null ? "-" :
            String.format(Locale.ROOT, "%.2fx", result.mlups() / reference.mlups());
        print(String.format(Locale.ROOT, ROW, result.variant().title(),
            String.format(Locale.ROOT, result.mlups() < 10 ? "%.4f" : "%.1f", result.mlups()),
            String.format(Locale.ROOT, "%.3f", result.millisecondsPerStep()),
            String.format(Locale.ROOT, "%.1f", 100 * result.communication()),
            speedup,
            String.format(Locale.ROOT, "%.2e", result.after().massDrift(result.before())),
            String.format(Locale.ROOT, "%.2e", result.after().phaseDrift(result.before(), result.globalCells())),
            String.format(Locale.ROOT, "%.2e", result.after().maxSpeed()),
            String.format(Locale.ROOT, "0x%016x", result.after().checksum())));
    }

    void comment(final String line)
    {
        print("# " + line);
    }

    /**
     * A progress line on stderr at the start of a variant and every two seconds while it runs.
     */
    void progress(final Variant variant, final String phase, final int step, final int steps, final boolean force)
    {
        final long nowNs = System.nanoTime();
        if (root && (force || nowNs - lastProgressNs > PROGRESS_EVERY_NS))
        {
            lastProgressNs = nowNs;
            err.printf(Locale.ROOT, "lbm: %s %s step %d of %d (%.1f s)%n", variant, phase, step, steps,
                (nowNs - startNs) / 1e9);
            err.flush();
        }
    }

    static String describe(final List<Variant> variants)
    {
        final StringBuilder text = new StringBuilder();
        for (final Variant variant : variants)
        {
            text.append(text.length() == 0 ? "" : ", ").append(variant.title());
        }
        return text.toString();
    }

    private void print(final String line)
    {
        if (root)
        {
            out.println(line);
            out.flush();
        }
    }
}
