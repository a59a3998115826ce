package io.stagecoach.benchmarks.datatype;

/**
 * One line of the face table: median microseconds of our pack, of the loop written by hand for the face, of a
 * memory copy of the same bytes, and of the peer's MPI_Pack ({@code NaN} when absent).
 */
record FaceRow(Face face, int grid, long bytes, double packUs, double handLoopUs, double memcpyUs,
    double mpiPackUs)
{
    static final String HEADER =
        "| face | grid | bytes | Stagecoach pack us | GB/s | memcpy us | GB/s | pack / memcpy bandwidth " +
        "| Open MPI MPI_Pack us | MPI_Pack time / Stagecoach time | hand loop us |\n" +
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |";

    /**
     * Columns of {@link #tsv()}.
     */
    static final String TSV_HEADER = "face\tgrid\tbytes\tpack_us\thand_loop_us\tmemcpy_us\tmpi_pack_us";

    static FaceRow parseTsv(final String line)
    {
        final String[] fields = line.split("\t");
        if (fields.length != 7)
        {
            throw new IllegalArgumentException("row needs 7 tab-separated fields, has " + fields.length + ": " +
                line);
        }
        return new FaceRow(Face.valueOf(fields[0]), Integer.parseInt(fields[1]), Long.parseLong(fields[2]),
            Double.parseDouble(fields[3]), Double.parseDouble(fields[4]), Double.parseDouble(fields[5]),
            Double.parseDouble(fields[6]));
    }

    String tsv()
    {
        return face + "\t" + grid + "\t" + bytes + "\t" + packUs + "\t" + handLoopUs + "\t" + memcpyUs + "\t" +
            mpiPackUs;
    }

    double fractionOfMemcpy()
    {
        return memcpyUs / packUs;
    }

    /**
     * How many times faster than MPI_Pack our pack is (above 1: faster).
     */
    double speedupOverMpiPack()
    {
        return mpiPackUs / packUs;
    }

    String markdown()
    {
        return String.format("| %s | %d^3 | %,d | %.3f | %.2f | %.3f | %.2f | %.0f%% | %s | %s | %.3f |",
            face, grid, bytes, packUs, gbPerSecond(packUs), memcpyUs, gbPerSecond(memcpyUs),
            100 * fractionOfMemcpy(), orNa("%.3f", mpiPackUs), orNa("%.2fx", speedupOverMpiPack()), handLoopUs);
    }

    private double gbPerSecond(final double us)
    {
        return bytes / us / 1e3;
    }

    private static String orNa(final String format, final double value)
    {
        return Double.isNaN(value) ? "n/a" : String.format(format, value);
    }
}
