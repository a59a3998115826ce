package io.stagecoach.examples.lbm;

import java.util.Arrays;

/**
 * One end of a halo message: a box of some components of a field.
 *
 * @param field      which field the box lies in.
 * @param box        the cells.
 * @param components component numbers of the field, ascending (0 for phi).
 */
record Side(Field field, Box box, int[] components)
{
    /**
     * Which field of a step a side lies in.
     */
    enum Field
    {
        /** The order parameter. */
        PHI,
        /** The step's current populations. */
        CURRENT,
        /** The populations the step streams into. */
        NEXT;

        long address(final Fields fields, final int parity)
        {
            return switch (this)
            {
                case PHI -> fields.phi();
                case CURRENT -> fields.current(parity);
                case NEXT -> fields.next(parity);
            };
        }
    }

    /**
     * @return elements the side holds.
     */
    long elements()
    {
        return box.cells() * components.length;
    }

    @Override
    public String toString()
    {
        return field + " " + box + " components " + Arrays.toString(components);
    }
}
