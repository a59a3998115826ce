package io.stagecoach.protocol.datatype;

/**
 * Accumulates lb, ub, true lb, true ub and alignment of a type map built from copies of other datatypes,
 * following MPI 3.1 section 4.1: lb and ub come from the explicit markers (set by {@code resized} and inherited
 * through every constructor) when any copy carries them; otherwise lb is the lowest byte of the basic elements
 * and ub the highest end of one plus epsilon, the least increment that makes the extent a multiple of the largest
 * alignment of the basic types in the map. True bounds always come from the basic elements. Copies of a datatype
 * without elements and without markers contribute nothing.
 */
final class Bounds
{
    long lb;
    long ub;
    long trueLb;
    long trueUb;
    boolean explicit;
    int alignmentBytes = 1;

    private boolean data;
    private long markedLb = Long.MAX_VALUE;
    private long markedUb = Long.MIN_VALUE;
    private long dataLb = Long.MAX_VALUE;
    private long dataUb = Long.MIN_VALUE;

    /**
     * Adds copies of {@code type} at {@code displacementBytes + i * outerStrideBytes + j * innerStrideBytes} for
     * i in [0, outerCount) and j in [0, innerCount).
     */
    void add(final long displacementBytes, final Datatype type, final long outerCount, final long outerStrideBytes,
        final long innerCount, final long innerStrideBytes)
    {
        final boolean hasData = type.elementCountUnchecked() > 0;
        if (outerCount == 0 || innerCount == 0 || (!hasData && !type.explicitBounds()))
        {
            return;
        }
        final long outerSpan = Checked.multiply(outerCount - 1, outerStrideBytes, "extent");
        final long innerSpan = Checked.multiply(innerCount - 1, innerStrideBytes, "extent");
        final long low = Checked.add(displacementBytes,
            Checked.add(Math.min(0, outerSpan), Math.min(0, innerSpan), "extent"), "extent");
        final long high = Checked.add(displacementBytes,
            Checked.add(Math.max(0, outerSpan), Math.max(0, innerSpan), "extent"), "extent");
        alignmentBytes = Math.max(alignmentBytes, type.basicAlignment());
        if (type.explicitBounds())
        {
            explicit = true;
            markedLb = Math.min(markedLb, Checked.add(low, type.lbUnchecked(), "lower bound"));
            markedUb = Math.max(markedUb, Checked.add(high, type.ubUnchecked(), "upper bound"));
        }
        if (hasData)
        {
            data = true;
            dataLb = Math.min(dataLb, Checked.add(low, type.trueLbUnchecked(), "true lower bound"));
            dataUb = Math.max(dataUb, Checked.add(high, type.trueUbUnchecked(), "true upper bound"));
        }
    }

    /**
     * @return this, with lb, ub and the true bounds set.
     */
    Bounds finish()
    {
        trueLb = data ? dataLb : 0;
        trueUb = data ? dataUb : 0;
        if (explicit)
        {
            lb = markedLb;
            ub = markedUb;
        }
        else
        {
            lb = trueLb;
            ub = Checked.add(trueUb, epsilon(Checked.add(trueUb, -trueLb, "extent")), "upper bound");
        }
        Checked.add(ub, -lb, "extent");
        return this;
    }

    private long epsilon(final long extentBytes)
    {
        final long remainder = Math.floorMod(extentBytes, (long)alignmentBytes);
        return remainder == 0 ? 0 : alignmentBytes - remainder;
    }
}
