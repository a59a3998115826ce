package io.stagecoach.node.cli;

import java.io.PrintWriter;
import java.util.Locale;

import io.stagecoach.protocol.datatype.BasicType;
import io.stagecoach.protocol.datatype.CompiledType;
import io.stagecoach.protocol.datatype.Datatype;
import io.stagecoach.protocol.datatype.TypeSignature;

/**
 * The report of {@code stagecoach datatype describe}: bounds, sizes, signature, the compiled (vectorized) form and,
 * on request, the flattened segments of {@code count} instances. Every figure is computed when it is made, so that
 * a count too large for the type fails before anything is printed.
 */
final class DatatypeDescription
{
    static final int MAX_RUNS_SHOWN = 16;
    static final long MAX_SEGMENTS_COUNTED = 10_000_000;

    private final String expression;
    private final Datatype type;
    private final CompiledType compiled;
    private final long count;
    private final long packedBytes;
    private final long lowBytes;
    private final long highBytes;
    private final TypeSignature signature;

    /**
     * @throws io.stagecoach.protocol.datatype.DatatypeException naming the count and its limit when the bytes or
     *                                                          the span of {@code count} instances overflow.
     */
    DatatypeDescription(final String expression, final Datatype type, final long count)
    {
        this.expression = expression;
        this.type = type;
        this.compiled = type.compiled();
        this.count = count;
        this.packedBytes = type.packSize(count);
        this.lowBytes = compiled.dataLowBytes(count);
        this.highBytes = compiled.dataHighBytes(count);
        this.signature = type.signature(count);
    }

    void print(final PrintWriter out, final boolean segments, final int maxSegments)
    {
        row(out, "expression", expression);
        row(out, "datatype", type.toString());
        row(out, "size", bytes(type.size()) + " packed per instance");
        row(out, "extent", bytes(type.extent()) + "   lb " + type.lb() + ", ub " + type.ub());
        row(out, "true extent", bytes(type.trueExtent()) + "   true lb " + type.trueLb() + ", true ub " +
            (type.trueLb() + type.trueExtent()));
        row(out, "elements", type.elementCount() + " basic elements per instance");
        if (count != 1)
        {
            row(out, "count", count + " instances: " + bytes(packedBytes) + " packed, " + signature.length() +
                " elements");
        }
        row(out, "buffer", "touches bytes [" + lowBytes + ", " + highBytes + ") of the buffer" +
            (count == 1 ? "" : " for " + count + " instances"));
        printSignature(out);
        out.println();
        out.println("compiled (vectorized) form:");
        compiled.describe().lines().forEach(line -> out.println("  " + line));
        if (segments)
        {
            out.println();
            printSegments(out, maxSegments);
        }
        out.flush();
    }

    private void printSignature(final PrintWriter out)
    {
        row(out, "signature", "hash 0x" + Long.toHexString(signature.hash()) + ", length " + signature.length() +
            " elements, " + bytes(signature.sizeBytes()) + (count == 1 ? "" : " (" + count + " instances)"));
        final StringBuilder runs = new StringBuilder();
        final long[] shown = { 0, 0 };
        try
        {
            signature.forEachRun((basic, runLength) ->
            {
                if (shown[0] == MAX_RUNS_SHOWN)
                {
                    throw new RunLimit();
                }
                runs.append(shown[0]++ == 0 ? "" : ", ").append(runLength).append(" x ").append(name(basic));
                shown[1] += runLength;
            });
            row(out, "runs", runs.toString());
        }
        catch (final RunLimit limit)
        {
            row(out, "runs", runs + ", ... (first " + MAX_RUNS_SHOWN + " runs, " + shown[1] + " of " +
                signature.length() + " elements)");
        }
    }

    private void printSegments(final PrintWriter out, final int maxSegments)
    {
        out.println("segments of " + count + (count == 1 ? " instance" : " instances") +
            " (displacement from the buffer start, offset in the packed stream, length; bytes):");
        out.printf(Locale.ROOT, "  %8s  %14s  %14s  %12s%n", "#", "displacement", "packed offset", "length");
        final long[] total = { 0 };
        try
        {
            compiled.forEachSegment(count, 0, packedBytes, (displacement, packedOffset, length) ->
            {
                if (total[0] < maxSegments)
                {
                    out.printf(Locale.ROOT, "  %8d  %14d  %14d  %12d%n", total[0], displacement, packedOffset, length);
                }
                if (++total[0] == MAX_SEGMENTS_COUNTED)
                {
                    throw new RunLimit();
                }
            });
            if (total[0] > maxSegments)
            {
                out.println("  ... " + (total[0] - maxSegments) + " more; " + total[0] + " segments in all " +
                    "(--max-segments N shows more)");
            }
            else
            {
                out.println("  " + total[0] + (total[0] == 1 ? " segment" : " segments"));
            }
        }
        catch (final RunLimit limit)
        {
            out.println("  ... more than " + MAX_SEGMENTS_COUNTED + " segments (counting stopped there)");
        }
    }

    private static String name(final BasicType basic)
    {
        return basic.name().toLowerCase(Locale.ROOT);
    }

    private static String bytes(final long bytes)
    {
        return bytes + (bytes == 1 ? " byte" : " bytes");
    }

    private static void row(final PrintWriter out, final String label, final String value)
    {
        out.printf(Locale.ROOT, "%-12s %s%n", label, value);
    }

    private static final class RunLimit extends RuntimeException
    {
        private static final long serialVersionUID = 1L;

        RunLimit()
        {
            super(null, null, false, false);
        }
    }
}
