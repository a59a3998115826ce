package io.stagecoach.node.cli;

import java.io.PrintWriter;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * The {@code stagecoach} command: {@code run} launches a job on this machine (like {@code mpirun}),
 * {@code datatype describe} explains a derived datatype, {@code tune} prints the device's measured costs and the paths
 * they choose, {@code agent} runs this node's agent in the cluster of agents and {@code agent status} shows that
 * cluster.
 */
@Command(
    name = "stagecoach",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    description = "MPI-style point-to-point messaging for GPU applications, on device and host buffers.",
    subcommands = { RunCommand.class, JobsCommand.class, KillCommand.class, DatatypeCommand.class, TuneCommand.class,
        AgentCommand.class,
        CommandLine.HelpCommand.class },
    footer = { "", "Logging: STAGECOACH_LOG_LEVEL=debug|info|warn (default info)." })
public final class StagecoachCommand implements Runnable
{
    @Spec
    private CommandSpec spec;

    /**
     * Run the command line and exit with its status; an error the command did not handle (a class missing from an
     * installation, say) is printed and ends the JVM with status 70, so that threads the command started cannot keep
     * it running (an agent whose transport failed to start would otherwise stay up, and its service manager would
     * not restart it).
     *
     * @param args command line arguments.
     */
    public static void main(final String[] args)
    {
        int status;
        try
        {
            status = commandLine().execute(args);
        }
        catch (final Error ex)
        {
            System.err.println("stagecoach: " + ex);
            ex.printStackTrace();
            status = 70;
        }
        System.exit(status);
    }

    /**
     * @return the command line, configured: options of {@code run} end at the program name, so that what follows
     * belongs to the program.
     */
    public static CommandLine commandLine()
    {
        final CommandLine commandLine = new CommandLine(new StagecoachCommand());
        final CommandLine run = commandLine.getSubcommands().get("run");
        run.setStopAtPositional(true);
        run.getCommandSpec().usageMessage().footer(RunCommand.footer());
        commandLine.setExecutionExceptionHandler((ex, line, parseResult) ->
        {
            line.getErr().println("stagecoach: " + ex.getMessage());
            return 1;
        });
        commandLine.setParameterExceptionHandler(StagecoachCommand::usageError);
        return commandLine;
    }

    private static int usageError(final CommandLine.ParameterException ex, final String[] args)
    {
        final CommandLine line = ex.getCommandLine();
        final PrintWriter err = line.getErr();
        err.println("stagecoach: " + ex.getMessage());
        err.print("Usage: " + line.getHelp().synopsis(0));
        err.println("Try '" + line.getCommandSpec().qualifiedName() + " --help' for more.");
        return line.getCommandSpec().exitCodeOnInvalidInput();
    }

    public void run()
    {
        throw new CommandLine.ParameterException(spec.commandLine(), "missing command: run, datatype, tune or agent");
    }
}
