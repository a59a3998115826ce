package io.stagecoach.benchmarks.datatype;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Per-pack times of the MPI_Pack peer, read from the output of {@code mpi_pack_faces}: comment lines start
 * with {@code #}, a header line names the columns, then one line per face and grid.
 */
final class PeerResults
{
    private static final String MPI_PACK_COLUMN = "mpi_pack_us";

    private final Map<String, Double> mpiPackUs = new HashMap<>();
    private final String library;

    private PeerResults(final String library)
    {
        this.library = library;
    }

    static PeerResults none()
    {
        return new PeerResults("none");
    }

    static PeerResults read(final Path file) throws IOException
    {
        final List<String> lines = Files.readAllLines(file);
        final PeerResults results = new PeerResults(libraryOf(lines));
        String[] header = null;
        for (final String line : lines)
        {
            if (line.isBlank() || line.startsWith("#"))
            {
                continue;
            }
            final String[] fields = line.trim().split("\\s+");
            if (null == header)
            {
                header = fields;
            }
            else
            {
                results.add(file, header, fields);
            }
        }
        return results;
    }

    String library()
    {
        return library;
    }

    /**
     * Median microseconds of one MPI_Pack of the face, or {@code NaN} when the peer did not measure it.
     */
    double mpiPackUs(final Face face, final int grid)
    {
        return mpiPackUs.getOrDefault(key(face.name(), grid), Double.NaN);
    }

    private void add(final Path file, final String[] header, final String[] fields)
    {
        if (fields.length != header.length)
        {
            throw new IllegalArgumentException(file + ": line has " + fields.length + " fields, header has " +
                header.length + ": " + String.join(" ", fields));
        }
        final int column = List.of(header).indexOf(MPI_PACK_COLUMN);
        if (column < 0)
        {
            throw new IllegalArgumentException(file + ": header has no column " + MPI_PACK_COLUMN);
        }
        mpiPackUs.put(key(fields[0], Integer.parseInt(fields[1])), Double.parseDouble(fields[column]));
    }

    private static String libraryOf(final List<String> lines)
    {
        return lines.isEmpty() || !lines.get(0).startsWith("#") ? "unknown" : lines.get(0).substring(1).trim();
    }

    private static String key(final String face, final int grid)
    {
        return face + "/" + grid;
    }
}
