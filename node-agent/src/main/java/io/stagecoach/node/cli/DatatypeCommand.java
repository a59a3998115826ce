package io.stagecoach.node.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code stagecoach datatype}: tools for derived datatypes.
 */
@Command(
    name = "datatype",
    mixinStandardHelpOptions = true,
    description = "Tools for MPI derived datatypes.",
    subcommands = { DescribeCommand.class })
final class DatatypeCommand implements Runnable
{
    @Spec
    private CommandSpec spec;

    public void run()
    {
        throw new CommandLine.ParameterException(spec.commandLine(), "missing command: describe");
    }
}
