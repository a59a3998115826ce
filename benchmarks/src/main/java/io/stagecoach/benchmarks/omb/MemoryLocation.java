package io.stagecoach.benchmarks.omb;

/**
 * Where a benchmark buffer lives, named on the command line as OMB names it: {@code H} for host memory, {@code D}
 * for device memory.
 */
enum MemoryLocation
{
    HOST('H'),
    DEVICE('D');

    private final char letter;

    MemoryLocation(final char letter)
    {
        this.letter = letter;
    }

    char letter()
    {
        return letter;
    }

    static MemoryLocation parse(final String text)
    {
        for (final MemoryLocation location : values())
        {
            if (text.length() == 1 && Character.toUpperCase(text.charAt(0)) == location.letter)
            {
                return location;
            }
        }
        throw new IllegalArgumentException("buffer location '" + text + "' is neither H (host) nor D (device)");
    }

    String describe()
    {
        return name() + " (" + letter + ")";
    }
}
