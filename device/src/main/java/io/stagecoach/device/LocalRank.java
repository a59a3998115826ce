package io.stagecoach.device;

import java.util.Map;

/**
 * The rank of this process among the job's processes on its node, as its launcher gives it, read as the rank
 * runtime's bootstrap reads it: the first launcher whose rank variable is set ({@code stagecoach run}, Open MPI, PMI,
 * Slurm, in that order) names the local rank variable, and its rank stands in where that is unset; a process started
 * by none of them is alone, local rank 0.
 *
 * @param value  the local rank.
 * @param source what gave it, for the log.
 */
record LocalRank(int value, String source)
{
    private static final String[][] LAUNCHERS =
    {
        {"STAGECOACH_RANK", "STAGECOACH_LOCAL_RANK"},
        {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_LOCAL_RANK"},
        {"PMI_RANK", "MPI_LOCALRANKID"},
        {"SLURM_PROCID", "SLURM_LOCALID"},
    };

    /**
     * @param environment the process's environment variables.
     * @return the local rank they give.
     * @throws IllegalArgumentException naming the variable and its value when that is no non-negative integer.
     */
    static LocalRank fromEnvironment(final Map<String, String> environment)
    {
        for (final String[] launcher : LAUNCHERS)
        {
            if (isSet(environment, launcher[0]))
            {
                final String variable = isSet(environment, launcher[1]) ? launcher[1] : launcher[0];
                return new LocalRank(parse(variable, environment.get(variable)), variable);
            }
        }
        return new LocalRank(0, "no launcher variable");
    }

    private static boolean isSet(final Map<String, String> environment, final String variable)
    {
        final String value = environment.get(variable);
        return value != null && !value.isBlank();
    }

    private static int parse(final String variable, final String value)
    {
        try
        {
            final int parsed = Integer.parseInt(value.trim());
            if (parsed >= 0)
            {
                return parsed;
            }
        }
        catch (final NumberFormatException ignore)
        {
            // named below
        }
        throw new IllegalArgumentException(variable + "=" + value + " is not a local rank (an integer from 0)");
    }
}
