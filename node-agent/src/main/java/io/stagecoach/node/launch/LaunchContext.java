package io.stagecoach.node.launch;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;

import io.stagecoach.rank.bootstrap.LaunchEnvironment;

/**
 * What to launch and how: the job's size, the program, its arguments and environment, output tagging, timeout, the
 * stage trace file and the rank processes' Java. Setters return this; {@link #conclude()} fills defaults and validates.
 */
public final class LaunchContext
{
    /**
     * JVM options every rank gets, before those of {@link #jvmOptions(List)}: Agrona 2 and the Aeron client reach
     * into these JDK internals. Ranks also get the launcher's {@code java.library.path} (a bundle's native
     * libraries).
     */
    public static final List<String> DEFAULT_JVM_OPTIONS = List.of(
        "--add-opens", "java.base/jdk.internal.misc=ALL-UNNAMED",
        "--add-opens", "java.base/sun.nio.ch=ALL-UNNAMED",
        "--add-opens", "java.base/java.util.zip=ALL-UNNAMED");
    /**
     * Performance options every rank gets after {@link #DEFAULT_JVM_OPTIONS} and before those of
     * {@link #jvmOptions(List)}, which can override them: Agrona's buffers without bounds checks, as Aeron's
     * deployments run them (an 8-byte message one way took 0.64-0.65 us against 0.76-0.83 us with the checks, on the
     * 16-core GPU host). Incoming messages are still validated field by field; the tests run with the checks.
     */
    public static final List<String> PERFORMANCE_JVM_OPTIONS = List.of("-Dagrona.disable.bounds.checks=true");

    private int size;
    private String program;
    private List<String> programArguments = List.of();
    private final Map<String, String> environment = new LinkedHashMap<>();
    private boolean tagOutput;
    private boolean inputToFirstRank;
    private boolean bindToCore;
    private boolean oversubscribe;
    private Duration timeout;
    private Duration deathGrace = Duration.ofSeconds(1);
    private Duration terminationGrace = Duration.ofSeconds(2);
    private Path javaExecutable;
    private String classPath;
    private List<String> jvmOptions = List.of();
    private boolean mediaDriver = true;
    private String jobId;
    private String nodeName;
    private PrintStream out;
    private PrintStream err;
    private String mainClass;
    private Path traceFile;
    private JobObserver jobObserver = JobObserver.NONE;
    private RankStarter rankStarter = RankProcess::start;
    private int[] nodeRanks;
    private JobEvents jobEvents;
    private Path aeronDirectory;
    private boolean concluded;

    /**
     * @param size number of rank processes, at least 1.
     * @return this for a fluent API.
     */
    public LaunchContext size(final int size)
    {
        this.size = size;
        return this;
    }

    /**
     * @param program a built-in name ({@link BuiltInPrograms}) or the name of a class with a {@code main} method
     *                on the rank class path.
     * @return this for a fluent API.
     */
    public LaunchContext program(final String program)
    {
        this.program = program;
        return this;
    }

    /**
     * @param arguments passed to every rank's {@code main}.
     * @return this for a fluent API.
     */
    public LaunchContext programArguments(final List<String> arguments)
    {
        this.programArguments = List.copyOf(arguments);
        return this;
    }

    /**
     * @param name  of a variable every rank gets (besides the launcher's own environment, which ranks inherit).
     * @param value its value.
     * @return this for a fluent API.
     */
    public LaunchContext environment(final String name, final String value)
    {
        environment.put(Objects.requireNonNull(name, "name"), Objects.requireNonNull(value, "value"));
        return this;
    }

    /**
     * @param bindToCore run rank r on the r-th core this launcher may use (modulo their number), as {@code mpirun
     *                   --bind-to core} does; false leaves placement to the operating system.
     * @return this for a fluent API.
     */
    public LaunchContext bindToCore(final boolean bindToCore)
    {
        this.bindToCore = bindToCore;
        return this;
    }

    /**
     * @param oversubscribe allow more ranks than {@link #slots()}, as {@code mpirun --oversubscribe} does; without
     *                      it {@link #conclude()} refuses them, since ranks that spin on shared cores slow each
     *                      other down by orders of magnitude, and hundreds of JVMs starting at once overload the
     *                      machine.
     * @return this for a fluent API.
     */
    public LaunchContext oversubscribe(final boolean oversubscribe)
    {
        this.oversubscribe = oversubscribe;
        return this;
    }

    /**
     * @return the slots of this machine, as {@code mpirun} counts them: the cores this process may run on (its
     * affinity mask and CPU quota, as {@link Runtime#availableProcessors()} reports them).
     */
    public static int slots()
    {
        return Runtime.getRuntime().availableProcessors();
    }

    /**
     * @param inputToFirstRank give rank 0 this process's standard input, as mpirun does; the other ranks, and every
     *                         rank without it, get an empty one.
     * @return this for a fluent API.
     */
    public LaunchContext inputToFirstRank(final boolean inputToFirstRank)
    {
        this.inputToFirstRank = inputToFirstRank;
        return this;
    }

    /**
     * @param tagOutput prefix every line a rank prints with {@code [rank] }.
     * @return this for a fluent API.
     */
    public LaunchContext tagOutput(final boolean tagOutput)
    {
        this.tagOutput = tagOutput;
        return this;
    }

    /**
     * @param timeout after which every rank still running is ended and the job fails with status 124; null for
     *                none.
     * @return this for a fluent API.
     */
    public LaunchContext timeout(final Duration timeout)
    {
        this.timeout = timeout;
        return this;
    }

    /**
     * @param grace how long the surviving ranks may run after a rank died abnormally (they are told at once, so
     *              that their pending requests fail naming it) before the launcher ends them.
     * @return this for a fluent API.
     */
    public LaunchContext deathGrace(final Duration grace)
    {
        this.deathGrace = grace;
        return this;
    }

    /**
     * @param grace how long a rank may take to exit after SIGTERM before it gets SIGKILL.
     * @return this for a fluent API.
     */
    public LaunchContext terminationGrace(final Duration grace)
    {
        this.terminationGrace = grace;
        return this;
    }

    /**
     * @param java the {@code java} executable for ranks; defaults to the launcher's own.
     * @return this for a fluent API.
     */
    public LaunchContext javaExecutable(final Path java)
    {
        this.javaExecutable = java;
        return this;
    }

    /**
     * @param classPath the ranks' class path; defaults to the launcher's own ({@code java.class.path}).
     * @return this for a fluent API.
     */
    public LaunchContext classPath(final String classPath)
    {
        this.classPath = classPath;
        return this;
    }

    /**
     * @param options JVM options for every rank, after {@link #DEFAULT_JVM_OPTIONS} (e.g. {@code -Xmx2g}).
     * @return this for a fluent API.
     */
    public LaunchContext jvmOptions(final List<String> options)
    {
        this.jvmOptions = List.copyOf(options);
        return this;
    }

    /**
     * @param mediaDriver whether the launcher runs an Aeron media driver for the job (default true).
     * @return this for a fluent API.
     */
    public LaunchContext mediaDriver(final boolean mediaDriver)
    {
        this.mediaDriver = mediaDriver;
        return this;
    }

    /**
     * @param jobId the job's id; defaults to the launcher's pid and a random suffix.
     * @return this for a fluent API.
     */
    public LaunchContext jobId(final String jobId)
    {
        this.jobId = jobId;
        return this;
    }

    /**
     * @return the variables given by {@link #environment(String, String)}, in order.
     */
    public Map<String, String> exportedEnvironment()
    {
        return Map.copyOf(environment);
    }

    /**
     * Start only some of the job's ranks, those of this node in a job across nodes; the first gets local rank 0.
     *
     * @param ranks the ranks to start, in order, each below {@link #size(int)}, no rank twice; null for all.
     * @return this for a fluent API.
     */
    public LaunchContext nodeRanks(final int[] ranks)
    {
        this.nodeRanks = null == ranks ? null : ranks.clone();
        return this;
    }

    /**
     * Use the job's rendezvous, run elsewhere, instead of starting one: the launcher of one node's ranks in a job
     * across nodes.
     *
     * @param events the job's rendezvous and where the exits of this launcher's ranks go; null to run one here.
     * @return this for a fluent API.
     */
    public LaunchContext jobEvents(final JobEvents events)
    {
        this.jobEvents = events;
        return this;
    }

    /**
     * Use the node's Aeron media driver, run by someone else (the node's agent), instead of one for the job.
     *
     * @param directory the running driver's Aeron directory; null to run a driver for the job.
     * @return this for a fluent API.
     */
    public LaunchContext aeronDirectory(final Path directory)
    {
        this.aeronDirectory = directory;
        return this;
    }

    /**
     * @param nodeName the node's name the ranks get ({@code STAGECOACH_NODE}); defaults to the host's name.
     * @return this for a fluent API.
     */
    public LaunchContext nodeName(final String nodeName)
    {
        this.nodeName = nodeName;
        return this;
    }

    /**
     * @param out where ranks' standard output goes (default {@link System#out}).
     * @param err where ranks' standard error and the launcher's reports go (default {@link System#err}).
     * @return this for a fluent API.
     */
    public LaunchContext output(final PrintStream out, final PrintStream err)
    {
        this.out = out;
        this.err = err;
        return this;
    }

    /**
     * @param file where the job's stage trace goes as Chrome trace JSON once the job has ended (replacing what is
     *             there, mode 0600), or null for none; its folder must exist.
     * @return this for a fluent API.
     */
    public LaunchContext traceFile(final Path file)
    {
        this.traceFile = file;
        return this;
    }

    /**
     * @param observer told when the job's folder is there and its ranks start, and when they have ended (a
     *                 dashboard); null for none.
     * @return this for a fluent API.
     */
    public LaunchContext jobObserver(final JobObserver observer)
    {
        this.jobObserver = null == observer ? JobObserver.NONE : observer;
        return this;
    }

    /**
     * @param starter how rank processes are started, for tests of slow or failing starts.
     * @return this for a fluent API.
     */
    LaunchContext rankStarter(final RankStarter starter)
    {
        this.rankStarter = starter;
        return this;
    }

    /**
     * Fill in defaults and validate; resolves the program to a main class on the rank class path.
     *
     * @return this for a fluent API.
     * @throws IllegalArgumentException naming a setting and its value when it cannot be used.
     * @throws LaunchException          when the program is not on the rank class path, or there are more ranks than
     *                                  {@link #slots()} without {@link #oversubscribe(boolean)}.
     */
    public LaunchContext conclude()
    {
        if (concluded)
        {
            return this;
        }
        if (size < 1)
        {
            throw new IllegalArgumentException("number of ranks must be at least 1, not " + size);
        }
        if (null == program || program.isBlank())
        {
            throw new IllegalArgumentException("no program to run");
        }
        checkPositive("death grace", deathGrace);
        checkPositive("termination grace", terminationGrace);
        if (null != timeout)
        {
            checkPositive("timeout", timeout);
        }
        javaExecutable = null != javaExecutable ? javaExecutable :
            Path.of(System.getProperty("java.home"), "bin", "java");
        classPath = null != classPath ? classPath : System.getProperty("java.class.path");
        jobId = null != jobId ? jobId : ProcessHandle.current().pid() + "-" +
            Integer.toHexString(ThreadLocalRandom.current().nextInt(0x1000, 0x10000));
        nodeName = null != nodeName ? nodeName : LaunchEnvironment.from(Map.of()).nodeName();
        checkNodeRanks();
        out = null != out ? out : System.out;
        err = null != err ? err : System.err;
        mainClass = new ProgramResolver(classPath).resolve(program);
        checkSlots();
        checkTraceFile();
        concluded = true;
        return this;
    }

    int size()
    {
        return size;
    }

    String program()
    {
        return program;
    }

    String mainClass()
    {
        return mainClass;
    }

    List<String> programArguments()
    {
        return programArguments;
    }

    Map<String, String> environment()
    {
        return environment;
    }

    boolean tagOutput()
    {
        return tagOutput;
    }

    boolean inputToFirstRank()
    {
        return inputToFirstRank;
    }

    boolean bindToCore()
    {
        return bindToCore;
    }

    Duration timeout()
    {
        return timeout;
    }

    Duration deathGrace()
    {
        return deathGrace;
    }

    Duration terminationGrace()
    {
        return terminationGrace;
    }

    List<String> command()
    {
        final List<String> command = new ArrayList<>();
        command.add(javaExecutable.toString());
        command.addAll(DEFAULT_JVM_OPTIONS);
        command.add("-Djava.library.path=" + System.getProperty("java.library.path", ""));
        command.addAll(PERFORMANCE_JVM_OPTIONS);
        command.addAll(jvmOptions);
        command.add("-cp");
        command.add(classPath);
        command.add(mainClass);
        command.addAll(programArguments);
        return command;
    }

    Path traceFile()
    {
        return traceFile;
    }

    JobObserver jobObserver()
    {
        return jobObserver;
    }

    RankStarter rankStarter()
    {
        return rankStarter;
    }

    boolean mediaDriver()
    {
        return mediaDriver && null == aeronDirectory;
    }

    Path aeronDirectory()
    {
        return aeronDirectory;
    }

    JobEvents jobEvents()
    {
        return jobEvents;
    }

    /**
     * @return how many ranks this launcher starts.
     */
    int localCount()
    {
        return null == nodeRanks ? size : nodeRanks.length;
    }

    /**
     * @param localRank the index of a rank among those this launcher starts.
     * @return its rank in the job.
     */
    int globalRank(final int localRank)
    {
        return null == nodeRanks ? localRank : nodeRanks[localRank];
    }

    String jobId()
    {
        return jobId;
    }

    String nodeName()
    {
        return nodeName;
    }

    PrintStream out()
    {
        return out;
    }

    PrintStream err()
    {
        return err;
    }

    private void checkNodeRanks()
    {
        if (null == nodeRanks)
        {
            return;
        }
        if (nodeRanks.length == 0)
        {
            throw new IllegalArgumentException("no ranks to start on node " + nodeName);
        }
        final boolean[] seen = new boolean[size];
        for (final int rank : nodeRanks)
        {
            if (rank < 0 || rank >= size || seen[rank])
            {
                throw new IllegalArgumentException("rank " + rank + (rank < 0 || rank >= size ?
                    " is not a rank of a job of " + size : " is given twice") + " (node " + nodeName + ")");
            }
            seen[rank] = true;
        }
    }

    private void checkSlots()
    {
        final int slots = slots();
        if (localCount() > slots && !oversubscribe)
        {
            throw new LaunchException("-n " + localCount() + " asks for more ranks than the " + slots + " slots here (the " +
                "cores this process may run on); add --oversubscribe to run more ranks than cores");
        }
    }

    private void checkTraceFile()
    {
        if (null == traceFile)
        {
            return;
        }
        traceFile = traceFile.toAbsolutePath().normalize();
        final Path folder = traceFile.getParent();
        if (null == folder || !Files.isDirectory(folder))
        {
            throw new LaunchException("--trace " + traceFile + ": its folder " + folder + " is not a directory");
        }
        if (Files.isDirectory(traceFile, LinkOption.NOFOLLOW_LINKS))
        {
            throw new LaunchException("--trace " + traceFile + " is a directory, not a file to write");
        }
    }

    private static void checkPositive(final String name, final Duration duration)
    {
        if (null == duration || duration.isNegative() || duration.isZero())
        {
            throw new IllegalArgumentException(name + " must be positive, not " + duration);
        }
    }
}
