package io.stagecoach.benchmarks.omb;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.util.Locale;
import java.util.Properties;

import io.stagecoach.rank.Stagecoach;

/**
 * Prints what rank 0 reports, in the format of the OSU Micro-Benchmarks: {@code #} title lines naming the runtime
 * and where the buffers live, a column header, then one row per size ({@code %-10d%18.2f}); and progress of long
 * runs on stderr.
 */
final class OmbReport
{
    private static final int SIZE_WIDTH = 10;
    private static final int FIELD_WIDTH = 18;
    private static final long PROGRESS_AFTER_NS = 2_000_000_000L;

    private final PrintStream out;
    private final boolean root;
    private final String program;
    private final long startNs = System.nanoTime();

    OmbReport(final String program, final boolean root)
    {
        this.out = System.out;
        this.program = program;
        this.root = root;
    }

    void title(final String test, final BenchmarkOptions options, final String deviceDescription)
    {
        print("# OSU MPI-style " + test + " (Stagecoach " + version() + ")");
        print("# Send Buffer on " + options.location(0).describe() + " and Receive Buffer on " +
            options.location(1).describe());
        if (deviceDescription != null)
        {
            print("# Device layer: " + deviceDescription);
        }
    }

    void comment(final String text)
    {
        print("# " + text);
    }

    void columns(final String... valueNames)
    {
        final StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "%-" + SIZE_WIDTH + "s", "# Size"));
        for (final String name : valueNames)
        {
            line.append(String.format(Locale.ROOT, "%" + FIELD_WIDTH + "s", name));
        }
        print(line.toString());
    }

    void row(final long sizeBytes, final double... values)
    {
        final StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "%-" + SIZE_WIDTH + "d", sizeBytes));
        for (final double value : values)
        {
            line.append(String.format(Locale.ROOT, "%" + FIELD_WIDTH + ".2f", value));
        }
        print(line.toString());
    }

    void print(final String line)
    {
        if (root)
        {
            out.println(line);
            out.flush();
        }
    }

    /**
     * Says on stderr what is measured next, once the run has taken long enough for someone to wonder.
     */
    void progress(final String what)
    {
        final long elapsedNs = System.nanoTime() - startNs;
        if (root && elapsedNs > PROGRESS_AFTER_NS)
        {
            System.err.printf(Locale.ROOT, "%s: %s (%.1f s)%n", program, what, elapsedNs / 1e9);
        }
    }

    static String version()
    {
        final String implementation = Stagecoach.class.getPackage().getImplementationVersion();
        if (implementation != null)
        {
            return implementation;
        }
        try (InputStream in = Stagecoach.class.getResourceAsStream(
            "/META-INF/maven/io.stagecoach/stagecoach-rank-actor/pom.properties"))
        {
            if (in != null)
            {
                final Properties properties = new Properties();
                properties.load(in);
                return properties.getProperty("version", "development build");
            }
        }
        catch (final IOException ex)
        {
            return "development build";
        }
        return "development build";
    }
}
