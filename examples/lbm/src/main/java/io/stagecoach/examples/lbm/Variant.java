package io.stagecoach.examples.lbm;

import java.util.List;
import java.util.Locale;

/**
 * The four implementations of the halo exchanges that the paper compares.
 */
enum Variant
{
    /** Pack kernels, copies to pinned host memory, host sends and receives, copies back, unpack kernels. */
    DEFAULT("Default"),
    /** The same pack and unpack kernels, the packed device buffers sent as contiguous device memory. */
    CONTIG("Contig"),
    /** Device memory sent and received with derived datatypes on both sides: no pack code in the application. */
    DATATYPE("Datatype"),
    /** Datatype, with the inner cells' kernels running while the messages of a phase are in flight. */
    OVERLAP("Overlap");

    private final String title;

    Variant(final String title)
    {
        this.title = title;
    }

    String title()
    {
        return title;
    }

    /**
     * @param name a variant's name in any case, or "all".
     * @return the variants it names, in the paper's order for "all".
     * @throws IllegalArgumentException naming the choices.
     */
    static List<Variant> parse(final String name)
    {
        if ("all".equalsIgnoreCase(name))
        {
            return List.of(values());
        }
        for (final Variant variant : values())
        {
            if (variant.name().equalsIgnoreCase(name))
            {
                return List.of(variant);
            }
        }
        throw new IllegalArgumentException("--variant " + name + ": one of default, contig, datatype, overlap, all");
    }

    PhaseExchange phase(final String name, final HaloContext context, final List<Transfer> transfers)
    {
        return switch (this)
        {
            case DEFAULT -> new StagedPhase(name, context, transfers, true);
            case CONTIG -> new StagedPhase(name, context, transfers, false);
            default -> new DatatypePhase(name, context, transfers);
        };
    }

    @Override
    public String toString()
    {
        return name().toLowerCase(Locale.ROOT);
    }
}
