package io.stagecoach.benchmarks.datatype;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * The face table in markdown, the median of several rounds of it, and the verdict on the goals: the Y and Z
 * faces at half of memcpy's bandwidth or better, and every face at least as fast as MPI_Pack.
 */
final class FaceReport
{
    private static final double MEMCPY_FRACTION_GOAL = 0.5;

    private FaceReport()
    {
    }

    static String render(final List<String> notes, final List<FaceRow> rows)
    {
        final StringBuilder report = new StringBuilder();
        notes.forEach((note) -> report.append(note).append('\n'));
        report.append('\n').append(FaceRow.HEADER).append('\n');
        rows.forEach((row) -> report.append(row.markdown()).append('\n'));
        report.append('\n').append(memcpyGoal(rows)).append('\n');
        report.append(mpiPackGoal(rows)).append('\n');
        return report.toString();
    }

    /**
     * Per face and grid, the median of each figure over the rounds that measured it.
     */
    static List<FaceRow> medians(final List<List<FaceRow>> rounds)
    {
        final Map<String, List<FaceRow>> byCase = new LinkedHashMap<>();
        for (final List<FaceRow> round : rounds)
        {
            round.forEach((row) -> byCase.computeIfAbsent(row.face() + "/" + row.grid(), (key) -> new ArrayList<>())
                .add(row));
        }
        final List<FaceRow> medians = new ArrayList<>();
        for (final List<FaceRow> rows : byCase.values())
        {
            final FaceRow first = rows.get(0);
            medians.add(new FaceRow(first.face(), first.grid(), first.bytes(), median(rows, FaceRow::packUs),
                median(rows, FaceRow::handLoopUs), median(rows, FaceRow::memcpyUs), median(rows, FaceRow::mpiPackUs)));
        }
        medians.sort(Comparator.comparingInt(FaceRow::grid).thenComparing(FaceRow::face));
        return medians;
    }

    static double median(final List<FaceRow> rows, final ToDoubleFunction<FaceRow> figure)
    {
        final double[] values = rows.stream().mapToDouble(figure).filter((value) -> !Double.isNaN(value)).toArray();
        if (values.length == 0)
        {
            return Double.NaN;
        }
        Arrays.sort(values);
        final int mid = values.length / 2;
        return values.length % 2 == 1 ? values[mid] : 0.5 * (values[mid - 1] + values[mid]);
    }

    private static String memcpyGoal(final List<FaceRow> rows)
    {
        final StringBuilder missed = new StringBuilder();
        for (final FaceRow row : rows)
        {
            if (Face.X != row.face() && !(row.fractionOfMemcpy() >= MEMCPY_FRACTION_GOAL))
            {
                missed.append(String.format(" %s %d^3 at %.0f%%;", row.face(), row.grid(),
                    100 * row.fractionOfMemcpy()));
            }
        }
        return "goal Y and Z faces >= 50% of memcpy bandwidth: " + verdict(missed);
    }

    private static String mpiPackGoal(final List<FaceRow> rows)
    {
        final StringBuilder missed = new StringBuilder();
        for (final FaceRow row : rows)
        {
            if (!(row.speedupOverMpiPack() >= 1.0))
            {
                missed.append(String.format(" %s %d^3 at %.2fx;", row.face(), row.grid(),
                    row.speedupOverMpiPack()));
            }
        }
        return "goal every face at least as fast as MPI_Pack: " + verdict(missed);
    }

    private static String verdict(final StringBuilder missed)
    {
        return missed.length() == 0 ? "met" : "missed:" + missed.substring(0, missed.length() - 1);
    }
}
