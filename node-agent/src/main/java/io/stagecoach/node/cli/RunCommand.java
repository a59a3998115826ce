package io.stagecoach.node.cli;

import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Stack;
import java.util.concurrent.Callable;

import io.stagecoach.node.dashboard.DashboardContext;
import io.stagecoach.node.launch.BuiltInPrograms;
import io.stagecoach.node.launch.LaunchContext;
import io.stagecoach.node.launch.LaunchException;
import io.stagecoach.node.launch.Launcher;
import io.stagecoach.node.jobs.HostSlots;
import io.stagecoach.node.jobs.JobRequest;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code stagecoach run}: start N ranks of a program on this machine, {@code mpirun} style.
 */
@Command(
    name = "run",
    mixinStandardHelpOptions = true,
    description = {
        "Start N ranks of a program on this machine, each a JVM with the same java and class path as this command, " +
            "with the node's Aeron media driver and the job's rendezvous service running here.",
        "With -H or --hostfile the job goes to the local agent, which runs it across the named nodes of its " +
            "cluster (each node's agent starts that node's ranks with its own Stagecoach and Java).",
        "Exits with the worst exit status of the ranks; when one fails the others are told at once and ended " +
            "about 1 s later (ranks not started yet are not started); after --timeout everything is ended and the " +
            "status is 124.",
        "At most one rank per core unless --oversubscribe.",
        "" },
    sortOptions = false)
final class RunCommand implements Callable<Integer>
{
    /** The most seconds --timeout and --dashboard-linger take: deadlines in nanoseconds stay far from overflow. */
    private static final long MAX_SECONDS = 1_000_000_000L;

    @Spec
    private CommandSpec spec;

    @Option(names = { "-n", "-np", "--np" }, required = true, paramLabel = "N", description = "Number of ranks.")
    private int size;

    @Option(names = "-x", paramLabel = "VAR[=value]",
        description = "Give every rank this environment variable: with a value, or this command's value of VAR.")
    private List<String> exports = new ArrayList<>();

    @Option(names = "--oversubscribe",
        description = "Allow more ranks than slots (the cores this command may run on), as mpirun does; without " +
            "it such a job is refused and nothing is started.")
    private boolean oversubscribe;

    @Option(names = "--tag-output", description = "Prefix every line of rank output with [rank].")
    private boolean tagOutput;

    @Option(names = "--bind-to", paramLabel = "core|none", defaultValue = "none",
        description = "core: run rank r on the r-th core this command may use (modulo their number), as mpirun " +
            "--bind-to core does, through taskset; none (the default): leave placement to the OS.")
    private BindTo bindTo;

    @Option(names = "--timeout", paramLabel = "SECONDS", converter = SecondsConverter.class,
        description = "End every rank this many seconds (decimals allowed) after the launch, also while ranks are " +
            "still starting, and exit with status 124.")
    private Duration timeout;

    @Option(names = "--trace", paramLabel = "FILE",
        description = "Write the stage trace of the job's pipelined device transfers (pack, device to host, wire, " +
            "host to device, unpack per chunk) to FILE as Chrome trace JSON, to open in ui.perfetto.dev: the ranks " +
            "record into a private folder of the job, merged into FILE when the job ends. FILE gets mode 0600 and " +
            "replaces what is there at once (a link there is replaced, not followed).")
    private Path traceFile;

    @Option(names = { "-H", "--host" }, paramLabel = "NODE[:SLOTS],...",
        description = "Run across these nodes of the agents' cluster (by their node-name), SLOTS ranks on each " +
            "(default 1) in order, as mpirun -H; through the local agent.")
    private List<String> hostLists = new ArrayList<>();

    @Option(names = "--hostfile", paramLabel = "FILE",
        description = "Nodes and slots in Open MPI's hostfile syntax ('node-a slots=4' a line), as -H.")
    private Path hostfile;

    @Mixin
    private AgentLocation agent;

    @Option(names = "--dashboard", paramLabel = "[PORT]", parameterConsumer = OptionalPort.class,
        description = "Serve a live dashboard of the job's stage trace (timeline, transfers in flight, link rates, " +
            "stage shares, Chrome trace download) over HTTP on PORT (any free port without one) and print a link " +
            "to it holding its token; the ranks publish their trace through shared memory while they run. See " +
            "docs/dashboard.md.")
    private Integer dashboardPort;

    @Option(names = "--dashboard-address", paramLabel = "ADDRESS", defaultValue = "127.0.0.1",
        description = "Where the dashboard listens (default 127.0.0.1). Every request needs the token: the file " +
            "that STAGECOACH_DASHBOARD_TOKEN_FILE names (yours, mode 0600), or one made at random and printed in " +
            "the link.")
    private String dashboardAddress;

    @Option(names = "--dashboard-linger", paramLabel = "SECONDS", defaultValue = "0",
        converter = LingerConverter.class,
        description = "Keep serving the dashboard this many seconds after the job ended (default 0).")
    private Duration dashboardLinger;

    @Option(names = "--dashboard-bars", paramLabel = "N",
        description = "Chunk bars per second the dashboard keeps for drawing (default 5000, about what a browser " +
            "draws; 5 to 1000000): beyond it the timeline shows a sample, and the page says so.")
    private Integer dashboardBars;

    @Option(names = { "-cp", "--classpath" }, paramLabel = "PATH",
        description = "Class path entries added after Stagecoach's own for the ranks.")
    private String classPath;

    @Option(names = { "-J", "--jvm-option" }, paramLabel = "OPTION",
        description = "Option for every rank's JVM, e.g. -J-Xmx2g (repeatable).")
    private List<String> jvmOptions = new ArrayList<>();

    @Parameters(index = "0", paramLabel = "<program>", description = "Main class or built-in program name.")
    private String program;

    @Parameters(index = "1..*", paramLabel = "<args>", description = "Arguments for the program.")
    private List<String> arguments = new ArrayList<>();

    public Integer call()
    {
        validate();
        if (!hostLists.isEmpty() || null != hostfile)
        {
            return runThroughAgent();
        }
        final LaunchContext context = new LaunchContext()
            .size(size)
            .program(program)
            .programArguments(arguments)
            .oversubscribe(oversubscribe)
            .tagOutput(tagOutput)
            .inputToFirstRank(true)
            .bindToCore(bindTo == BindTo.core)
            .traceFile(traceFile);
        context.timeout(timeout);
        if (null != classPath && !classPath.isEmpty())
        {
            context.classPath(System.getProperty("java.class.path") + File.pathSeparator + classPath);
        }
        context.jvmOptions(jvmOptions);
        exportVariables(context);
        if (null == dashboardPort)
        {
            return launch(context);
        }
        if (!DashboardContext.serverAvailable())
        {
            spec.commandLine().getErr().println("stagecoach: --dashboard needs Pekko HTTP, which is not on the " +
                "class path (a bundle made by bin/build-bundle leaves it out: it is for GPU runs); run the dashboard " +
                "from a build of the repository, or use --trace FILE");
            return 2;
        }
        try (RunDashboard dashboard = RunDashboard.start(dashboardAddress, dashboardPort,
            null == dashboardBars ? DashboardContext.DEFAULT_BARS_PER_SECOND : dashboardBars,
            dashboardLinger, spec.commandLine().getErr()))
        {
            return launch(context.jobObserver(dashboard.observer()));
        }
        catch (final IOException | IllegalArgumentException | IllegalStateException ex)
        {
            spec.commandLine().getErr().println("stagecoach: dashboard: " + ex.getMessage());
            return 1;
        }
    }

    private int launch(final LaunchContext context)
    {
        try
        {
            return Launcher.run(context);
        }
        catch (final LaunchException ex)
        {
            spec.commandLine().getErr().println("stagecoach: " + ex.getMessage());
            return 1;
        }
    }

    private int runThroughAgent()
    {
        if (null != traceFile || bindTo == BindTo.core)
        {
            throw new CommandLine.ParameterException(spec.commandLine(),
                "--trace and --bind-to core are for jobs on this node alone, not with -H or --hostfile");
        }
        if (null != dashboardPort)
        {
            throw new CommandLine.ParameterException(spec.commandLine(),
                "--dashboard serves a job on this node alone, not with -H or --hostfile: a job through agents shows " +
                "on the dashboard of the agent it is submitted to, where its configuration sets dashboard.port " +
                "(docs/dashboard.md)");
        }
        final List<HostSlots> hosts = new ArrayList<>();
        try
        {
            for (final String list : hostLists)
            {
                hosts.addAll(HostSlots.parseList(list));
            }
            if (null != hostfile)
            {
                hosts.addAll(HostSlots.parseFile(hostfile));
            }
        }
        catch (final IOException ex)
        {
            throw new CommandLine.ParameterException(spec.commandLine(),
                "--hostfile " + hostfile + " cannot be read: " + ex.getMessage());
        }
        catch (final IllegalArgumentException ex)
        {
            throw new CommandLine.ParameterException(spec.commandLine(), ex.getMessage());
        }
        final Map<String, String> environment = new LinkedHashMap<>();
        final LaunchContext exported = new LaunchContext();
        exportVariables(exported);
        exported.exportedEnvironment().forEach(environment::put);
        final JobRequest request = new JobRequest(size, hosts, program, arguments,
            null == classPath ? "" : classPath, jvmOptions, environment, tagOutput, oversubscribe,
            null == timeout ? 0 : timeout.toMillis());
        final Path socket;
        try
        {
            socket = agent.socket();
        }
        catch (final RuntimeException ex)
        {
            spec.commandLine().getErr().println("stagecoach: cannot find the local agent: " + ex.getMessage());
            return 1;
        }
        return AgentJob.run(socket, request, spec.commandLine().getOut(), spec.commandLine().getErr());
    }

    private void validate()
    {
        if (size < 1)
        {
            throw new CommandLine.ParameterException(spec.commandLine(), "-n must be at least 1, not " + size);
        }
        if (null != dashboardBars && null == dashboardPort)
        {
            throw new CommandLine.ParameterException(spec.commandLine(), "--dashboard-bars goes with --dashboard");
        }
        if (null != dashboardBars && (dashboardBars < DashboardContext.MIN_BARS_PER_SECOND ||
            dashboardBars > DashboardContext.MAX_BARS_PER_SECOND))
        {
            throw new CommandLine.ParameterException(spec.commandLine(), "--dashboard-bars " + dashboardBars +
                " is outside " + DashboardContext.MIN_BARS_PER_SECOND + " to " + DashboardContext.MAX_BARS_PER_SECOND);
        }
    }

    private void exportVariables(final LaunchContext context)
    {
        for (final String export : exports)
        {
            final int equals = export.indexOf('=');
            final String name = equals < 0 ? export : export.substring(0, equals);
            if (name.isEmpty())
            {
                throw new CommandLine.ParameterException(spec.commandLine(), "-x " + export + ": no variable name");
            }
            if (equals >= 0)
            {
                context.environment(name, export.substring(equals + 1));
            }
            else if (null != System.getenv(name))
            {
                context.environment(name, System.getenv(name));
            }
            else
            {
                spec.commandLine().getErr().println("stagecoach: -x " + name + ": not set here, ranks do not get it");
            }
        }
    }

    /**
     * {@code --dashboard [PORT]}: takes the next argument as the port only when it is a port number, so that
     * {@code --dashboard bw} leaves the program name alone (picocli's optional values would try to convert it).
     */
    static final class OptionalPort implements CommandLine.IParameterConsumer
    {
        public void consumeParameters(
            final Stack<String> args, final CommandLine.Model.ArgSpec argSpec, final CommandSpec commandSpec)
        {
            if (!args.isEmpty() && args.peek().matches("[0-9]{1,5}"))
            {
                final int port = Integer.parseInt(args.pop());
                if (port > 65_535)
                {
                    throw new CommandLine.ParameterException(commandSpec.commandLine(),
                        "--dashboard port " + port + " is outside [0, 65535]");
                }
                argSpec.setValue(port);
            }
            else
            {
                argSpec.setValue(0);
            }
        }
    }

    static final class SecondsConverter implements CommandLine.ITypeConverter<Duration>
    {
        public Duration convert(final String value)
        {
            return seconds(value, false);
        }
    }

    /**
     * A number of seconds, 0 or more.
     */
    static final class LingerConverter implements CommandLine.ITypeConverter<Duration>
    {
        public Duration convert(final String value)
        {
            return seconds(value, true);
        }
    }

    private static Duration seconds(final String value, final boolean zeroAllowed)
    {
        final double seconds;
        try
        {
            seconds = Double.parseDouble(value);
        }
        catch (final NumberFormatException ex)
        {
            throw new CommandLine.TypeConversionException("'" + value + "' is not a number of seconds");
        }
        if (!(seconds > 0 || zeroAllowed && seconds == 0))
        {
            throw new CommandLine.TypeConversionException("'" + value + "' is not a " +
                (zeroAllowed ? "number of seconds, 0 or more" : "positive number of seconds"));
        }
        if (seconds > MAX_SECONDS)
        {
            throw new CommandLine.TypeConversionException("'" + value + "' is more than " + MAX_SECONDS +
                " seconds (about 31 years), the longest this takes");
        }
        return Duration.ofMillis(seconds == 0 ? 0 : Math.max(1, Math.round(seconds * 1000)));
    }

    static String[] footer()
    {
        return new String[]{
            "",
            "<program> is a class with a main method on the class path, or a built-in:",
            "  " + BuiltInPrograms.names(),
            "Ranks inherit this command's environment and get STAGECOACH_RANK,",
            "STAGECOACH_SIZE, STAGECOACH_LOCAL_RANK, STAGECOACH_JOB, STAGECOACH_NODE,",
            "STAGECOACH_RENDEZVOUS (127.0.0.1:port), STAGECOACH_SECRET (the job's",
            "secret: the rendezvous service admits only ranks that know it),",
            "STAGECOACH_AERON_DIR and, with --trace, STAGECOACH_TRACE_DIR.",
            "",
            "Examples:",
            "  stagecoach run -n 2 latency",
            "  stagecoach run -np 4 --tag-output --timeout 60 \\",
            "      -x STAGECOACH_LOG_LEVEL=debug -- com.example.Main arg1",
            "  stagecoach run -n 8 --oversubscribe com.example.Main   # more ranks than cores",
            "  stagecoach run -n 2 --trace dd.json latency D D   # for Perfetto",
            "  stagecoach run -n 2 --dashboard 8080 bw D D       # live, in a browser" };
    }

    /**
     * Choices of {@code --bind-to}.
     */
    enum BindTo
    {
        core,
        none
    }
}
