package io.stagecoach.protocol.datatype;

/**
 * Accumulates lb, ub, true lb, true ub and alignment of a type map built from copies of other datatypes,
 * following MPI's definitions: lb and ub come from the explicit markers (set by {@code resized} and inherited
 * through every constructor) when any copy carries them, otherwise from the lowest and highest byte of the
 * basic elements; true bounds always come from the basic elements. Copies of a datatype without elements and
 * without markers contribute nothing.
 */
final class Bounds
{
    long lb;
    long ub;
    long trueLb;
    long trueUb;
    boolean explicit;
    int alignmentBytes = 1;

    private boolean any;
    private boolean data;
    private long markedLb = Long.MAX_VALUE;
    private long markedUb = Long.MIN_VALUE;
    private long naturalLb = Long.MAX_VALUE;
    private long naturalUb = Long.MIN_VALUE;
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
        any = true;
        if (type.explicitBounds())
        {
            explicit = true;
            markedLb = Math.min(markedLb, Checked.add(low, type.lbUnchecked(), "lower bound"));
            markedUb = Math.max(markedUb, Checked.add(high, type.ubUnchecked(), "upper bound"));
        }
        else
        {
            naturalLb = Math.min(naturalLb, Checked.add(low, type.lbUnchecked(), "lower bound"));
            naturalUb = Math.max(naturalUb, Checked.add(high, type.ubUnchecked(), "upper bound"));
        }
        if (hasData)
        {
            data = true;
            dataLb = Math.min(dataLb, Checked.add(low, type.trueLbUnchecked(), "true lower bound"));
            dataUb = Math.max(dataUb, Checked.add(high, type.trueUbUnchecked(), "true upper bound"));
        }
    }

    /**
     * @param padToAlignment apply the struct rule: without explicit markers, round the extent up to a multiple
     *                       of the largest alignment of the basic types.
     * @return this.
     */
    Bounds finish(final boolean padToAlignment)
    {
        lb = !any ? 0 : explicit ? markedLb : naturalLb;
        ub = !any ? 0 : explicit ? markedUb : naturalUb;
        trueLb = data ? dataLb : 0;
        trueUb = data ? dataUb : 0;
        if (padToAlignment && any && !explicit)
        {
            final long remainder = Math.floorMod(Checked.add(ub, -lb, "extent"), (long)alignmentBytes);
            if (remainder != 0)
            {
                ub = Checked.add(ub, alignmentBytes - remainder, "upper bound");
            }
        }
        Checked.add(ub, -lb, "extent");
        return this;
    }
}
