package io.stagecoach.benchmarks.datatype;

import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Runs {@link PackFacesBenchmark} with JMH and prints a markdown table of the faces beside a memory copy of
 * the same bytes, the loop written by hand for each face and, when given its output, the MPI_Pack peer, with
 * the verdict on the goals. Each figure is
 * the median over all measured iterations of all forks.
 * <pre>
 * PackFacesTable [--peer FILE] [--grids 128,256] [--forks 1] [--warmup-iterations 3] [--iterations 5]
 *                [--iteration-ms 1000] [--rows FILE] [--out FILE]
 * PackFacesTable [--out FILE] --merge ROWS_FILE...
 * </pre>
 * {@code --rows} keeps one round's figures; {@code --merge} prints the table of the per-figure medians over
 * the rounds in the given rows files instead of running anything.
 */
public final class PackFacesTable
{
    private static final String NOTE = "# ";

    private PeerResults peer = PeerResults.none();
    private String grids = "128,256";
    private int forks = 1;
    private int warmupIterations = 3;
    private int iterations = 5;
    private long iterationMs = 1000;
    private Path rowsFile;
    private Path out;
    private final List<Path> merged = new ArrayList<>();

    private PackFacesTable()
    {
    }

    /**
     * Entry point.
     *
     * @param args options, see the class comment.
     * @throws IOException     when a file cannot be read or written.
     * @throws RunnerException when JMH fails, including a benchmark whose setup finds a wrong pack.
     */
    public static void main(final String[] args) throws IOException, RunnerException
    {
        final PackFacesTable table = new PackFacesTable();
        table.parse(args);
        if (table.merged.isEmpty())
        {
            table.measure();
        }
        else
        {
            table.merge();
        }
    }

    private void parse(final String[] args) throws IOException
    {
        for (int i = 0; i < args.length; i += 2)
        {
            if ("--merge".equals(args[i]))
            {
                Arrays.stream(args, i + 1, args.length).map(Path::of).forEach(merged::add);
                if (merged.isEmpty())
                {
                    throw new IllegalArgumentException("--merge needs at least one rows file");
                }
                return;
            }
            if (i + 1 >= args.length)
            {
                throw new IllegalArgumentException("option " + args[i] + " needs a value");
            }
            option(args[i], args[i + 1]);
        }
    }

    private void option(final String name, final String value) throws IOException
    {
        switch (name)
        {
            case "--peer" -> peer = PeerResults.read(Path.of(value));
            case "--grids" -> grids = value;
            case "--forks" -> forks = positive(name, value);
            case "--warmup-iterations" -> warmupIterations = positive(name, value);
            case "--iterations" -> iterations = positive(name, value);
            case "--iteration-ms" -> iterationMs = positive(name, value);
            case "--rows" -> rowsFile = Path.of(value);
            case "--out" -> out = Path.of(value);
            default -> throw new IllegalArgumentException("unknown option " + name);
        }
    }

    private void measure() throws IOException, RunnerException
    {
        final Collection<RunResult> results = new Runner(new OptionsBuilder()
            .include(PackFacesBenchmark.class.getName() + "\\.")
            .param("grid", grids.split(","))
            .forks(forks)
            .jvmArgsAppend(PackFacesBenchmark.ADD_EXPORTS, PackFacesBenchmark.UNSAFE_PACKAGE)
            .shouldFailOnError(true)
            .warmupIterations(warmupIterations)
            .warmupTime(TimeValue.milliseconds(iterationMs))
            .measurementIterations(iterations)
            .measurementTime(TimeValue.milliseconds(iterationMs))
            .build()).run();
        final List<String> notes = List.of(
            "MPI_Pack peer: " + peer.library(),
            String.format("JMH: %d fork(s), %d warm-up and %d measured iterations of %d ms; medians of iterations",
                forks, warmupIterations, iterations, iterationMs));
        final List<FaceRow> rows = FaceReport.medians(List.of(rows(results)));
        if (null != rowsFile)
        {
            writeRows(notes, rows);
        }
        emit(FaceReport.render(notes, rows));
    }

    private void merge() throws IOException
    {
        final List<List<FaceRow>> rounds = new ArrayList<>();
        final List<String> notes = new ArrayList<>();
        for (final Path file : merged)
        {
            final List<FaceRow> round = new ArrayList<>();
            for (final String line : Files.readAllLines(file, StandardCharsets.UTF_8))
            {
                if (line.startsWith(NOTE))
                {
                    if (rounds.isEmpty())
                    {
                        notes.add(line.substring(NOTE.length()));
                    }
                }
                else if (!line.isBlank() && !line.equals(FaceRow.TSV_HEADER))
                {
                    round.add(FaceRow.parseTsv(line));
                }
            }
            rounds.add(round);
        }
        notes.add("Each figure: median over " + rounds.size() + " round(s), each round the peer then JMH");
        emit(FaceReport.render(notes, FaceReport.medians(rounds)));
    }

    private List<FaceRow> rows(final Collection<RunResult> results)
    {
        final Map<String, Double> medianUs = new HashMap<>();
        for (final RunResult result : results)
        {
            final String benchmark = result.getParams().getBenchmark();
            final String method = benchmark.substring(benchmark.lastIndexOf('.') + 1);
            medianUs.put(key(method, result.getParams().getParam("face"), result.getParams().getParam("grid")),
                result.getPrimaryResult().getStatistics().getPercentile(50));
        }
        final List<FaceRow> rows = new ArrayList<>();
        for (final String grid : grids.split(","))
        {
            for (final Face face : Face.values())
            {
                final int edge = Integer.parseInt(grid.trim());
                rows.add(new FaceRow(face, edge, (long)edge * edge * PackFacesBenchmark.FLOAT_BYTES,
                    medianUs.getOrDefault(key("pack", face.name(), grid.trim()), Double.NaN),
                    medianUs.getOrDefault(key("handLoop", face.name(), grid.trim()), Double.NaN),
                    medianUs.getOrDefault(key("memcpy", face.name(), grid.trim()), Double.NaN),
                    peer.mpiPackUs(face, edge)));
            }
        }
        return rows;
    }

    private void writeRows(final List<String> notes, final List<FaceRow> rows) throws IOException
    {
        final StringBuilder text = new StringBuilder();
        notes.forEach((note) -> text.append(NOTE).append(note).append('\n'));
        text.append(FaceRow.TSV_HEADER).append('\n');
        rows.forEach((row) -> text.append(row.tsv()).append('\n'));
        Files.writeString(rowsFile, text, StandardCharsets.UTF_8);
    }

    private void emit(final String report) throws IOException
    {
        System.out.print(report);
        if (null != out)
        {
            Files.writeString(out, report, StandardCharsets.UTF_8);
        }
    }

    private static String key(final String method, final String face, final String grid)
    {
        return method + "/" + face + "/" + grid;
    }

    private static int positive(final String option, final String value)
    {
        final int parsed = Integer.parseInt(value);
        if (parsed < 1)
        {
            throw new IllegalArgumentException(option + " must be at least 1, was " + value);
        }
        return parsed;
    }
}
