package io.stagecoach.examples.lbm;

/**
 * One message of a halo phase: it travels along {@code dimension} in the direction {@code sign}, from this rank's
 * {@code send} side to neighbour {@code to}, while the same message of neighbour {@code from} (on the other side)
 * lands in {@code receive}. Both sides hold the same number of elements.
 *
 * @param dimension 0 x, 1 y, 2 z.
 * @param sign      +1 or -1.
 * @param to        the rank the message goes to.
 * @param from      the rank the matching message comes from.
 * @param tag       of both messages.
 * @param send      what this rank sends.
 * @param receive   where this rank receives.
 */
record Transfer(int dimension, int sign, int to, int from, int tag, Side send, Side receive)
{
    /**
     * @return the face the message leaves through, e.g. "+x".
     */
    String face()
    {
        return (sign > 0 ? "+" : "-") + "xyz".charAt(dimension);
    }
}
