package io.stagecoach.examples.lbm;

/**
 * What one variant's run measured, the same on every rank.
 *
 * @param variant         the variant.
 * @param steps           timed steps.
 * @param seconds         wall time of the timed steps, the slowest rank's.
 * @param globalCells     cells of the lattice.
 * @param communication   share of the ranks' step time spent in the exchanges, in [0, 1].
 * @param before          totals at the start, before the warm-up.
 * @param after           totals at the end.
 */
record VariantResult(Variant variant, int steps, double seconds, long globalCells, double communication,
    Totals before, Totals after)
{
    /**
     * @return million lattice-site updates per second.
     */
    double mlups()
    {
        return globalCells * (double)steps / seconds / 1e6;
    }

    double millisecondsPerStep()
    {
        return seconds * 1e3 / steps;
    }
}
