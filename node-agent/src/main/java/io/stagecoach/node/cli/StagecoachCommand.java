package io.stagecoach.node.cli;

import java.io.PrintWriter;
import java.util.List;

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
    footer = { "", "Logging: STAGECOACH_LOG_LEVEL=debug|info|warn (default info)." })
public final class StagecoachCommand implements Runnable
{
    /**
     * The subcommands, in the order help lists them. Picocli reads each one's annotations, through reflection, when
     * it is added: a command line names one, so only that one is built, which starts the command sooner; a line that
     * names none, or help, gets them all.
     */
    private static final List<String> SUBCOMMANDS = List.of("run", "ps", "kill", "datatype", "tune", "agent", "help");

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
            status = commandLine(args).execute(args);
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
     * @return the command line with every subcommand, configured: options of {@code run} end at the program name, so
     * that what follows belongs to the program.
     */
    public static CommandLine commandLine()
    {
        return commandLine(new String[0]);
    }

    /**
     * @param args the arguments the command line is for.
     * @return the command line as {@link #commandLine()}, with only the subcommand the arguments name where they
     * start with one other than {@code help}.
     */
    static CommandLine commandLine(final String[] args)
    {
        final CommandLine commandLine = new CommandLine(new StagecoachCommand());
        final String first = args.length > 0 ? args[0] : "";
        for (final String name : SUBCOMMANDS.contains(first) && !"help".equals(first) ? List.of(first) : SUBCOMMANDS)
        {
            commandLine.addSubcommand(name, subcommand(name));
        }
        final CommandLine run = commandLine.getSubcommands().get("run");
        if (null != run)
        {
            run.setStopAtPositional(true);
            run.getCommandSpec().usageMessage().footer(RunCommand.footer());
        }
        commandLine.setExecutionExceptionHandler((ex, line, parseResult) ->
        {
            line.getErr().println("stagecoach: " + ex.getMessage());
            return 1;
        });
        commandLine.setParameterExceptionHandler(StagecoachCommand::usageError);
        return commandLine;
    }

    private static Object subcommand(final String name)
    {
        return switch (name)
        {
            case "run" -> new RunCommand();
            case "ps" -> new JobsCommand();
            case "kill" -> new KillCommand();
            case "datatype" -> new DatatypeCommand();
            case "tune" -> new TuneCommand();
            case "agent" -> new AgentCommand();
            default -> new CommandLine.HelpCommand();
        };
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
