package io.stagecoach.rank.bootstrap;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

import io.stagecoach.protocol.host.PrivateDirectory;

/**
 * Where a rank process stands in its job: rank, size, job id, node, the node's Aeron directory and the launcher's
 * rendezvous service, as given by the environment of the process.
 * <p>
 * Recognised launchers, in order of precedence:
 * <ol>
 *     <li>{@code stagecoach run}: {@code STAGECOACH_RANK}, {@code STAGECOACH_SIZE}, {@code STAGECOACH_JOB},
 *     {@code STAGECOACH_RENDEZVOUS} ({@code 127.0.0.1:port}), {@code STAGECOACH_SECRET} (the job's
 *     {@link JobSecret}), {@code STAGECOACH_AERON_DIR}, {@code STAGECOACH_NODE}, {@code STAGECOACH_LOCAL_RANK}.</li>
 *     <li>Open MPI: {@code OMPI_COMM_WORLD_RANK}, {@code OMPI_COMM_WORLD_SIZE},
 *     {@code OMPI_COMM_WORLD_LOCAL_RANK}.</li>
 *     <li>PMI (MPICH Hydra and others): {@code PMI_RANK}, {@code PMI_SIZE}, {@code MPI_LOCALRANKID}.</li>
 *     <li>Slurm: {@code SLURM_PROCID}, {@code SLURM_NTASKS}, {@code SLURM_LOCALID}.</li>
 *     <li>none of these: a singleton, rank 0 of 1.</li>
 * </ol>
 * Ranks started by a foreign launcher have no rendezvous service unless {@code STAGECOACH_RENDEZVOUS} is set; they
 * follow a deterministic convention instead: all ranks share one node, and the Aeron directory is
 * {@code STAGECOACH_AERON_DIR} or {@link #defaultAeronDirectory(String)} of the job id, which is derived from the
 * launcher's job variables (or {@code STAGECOACH_JOB} when set).
 */
public final class LaunchEnvironment
{
    public static final String RANK = "STAGECOACH_RANK";
    public static final String SIZE = "STAGECOACH_SIZE";
    public static final String JOB = "STAGECOACH_JOB";
    public static final String RENDEZVOUS = "STAGECOACH_RENDEZVOUS";
    /**
     * The job's secret ({@link JobSecret#text()}), which a rank needs to join the rendezvous service. Given in the
     * environment only: a process's environment is readable by its owner alone, its command line by everyone.
     */
    public static final String SECRET = "STAGECOACH_SECRET";
    public static final String AERON_DIR = "STAGECOACH_AERON_DIR";
    public static final String NODE = "STAGECOACH_NODE";
    public static final String LOCAL_RANK = "STAGECOACH_LOCAL_RANK";
    /**
     * {@code cluster} where the job's ranks run on several nodes: the rendezvous service then runs on the cluster's
     * network, at the literal address of the node the job was submitted to, instead of on the loopback network.
     */
    public static final String RENDEZVOUS_SCOPE = "STAGECOACH_RENDEZVOUS_SCOPE";

    /**
     * The launcher a process was started by.
     */
    public enum Source
    {
        STAGECOACH, OPEN_MPI, PMI, SLURM, SINGLETON
    }

    private final Source source;
    private final int rank;
    private final int size;
    private final int localRank;
    private final String jobId;
    private final InetSocketAddress rendezvous;
    private final JobSecret secret;
    private final String aeronDirectory;
    private final String nodeName;

    LaunchEnvironment(
        final Source source,
        final int rank,
        final int size,
        final int localRank,
        final String jobId,
        final InetSocketAddress rendezvous,
        final JobSecret secret,
        final String aeronDirectory,
        final String nodeName)
    {
        this.source = source;
        this.rank = rank;
        this.size = size;
        this.localRank = localRank;
        this.jobId = jobId;
        this.rendezvous = rendezvous;
        this.secret = secret;
        this.aeronDirectory = aeronDirectory;
        this.nodeName = nodeName;
    }

    /**
     * The launch environment of this process.
     *
     * @return what {@link #from(Map)} makes of {@link System#getenv()}.
     * @throws IllegalStateException when a launcher variable holds a value that cannot be used.
     */
    public static LaunchEnvironment detect()
    {
        return from(System.getenv());
    }

    /**
     * The launch environment described by a set of environment variables.
     *
     * @param env environment variables.
     * @return the launch environment.
     * @throws IllegalStateException naming the variable and its value when one cannot be used.
     */
    public static LaunchEnvironment from(final Map<String, String> env)
    {
        return new EnvironmentReader(Objects.requireNonNull(env, "env")).read();
    }

    /**
     * The Aeron directory used for a job when the environment does not name one: {@code aeron} in the job's folder
     * {@code <base>/stagecoach-<user>-<job id>}, whose base is {@code /dev/shm} when it is a writable directory and
     * {@code java.io.tmpdir} otherwise. The node's first rank creates that folder, private ({@link JobFolder}); the
     * others check it before they use it.
     *
     * @param jobId the job id.
     * @return the directory, with characters other than letters, digits, '.', '_' and '-' in the folder's name
     * replaced by '_'.
     */
    public static String defaultAeronDirectory(final String jobId)
    {
        return PrivateDirectory.sharedMemoryBase()
            .resolve(sanitise(PrivateDirectory.PREFIX + JobFolder.user() + "-" + jobId))
            .resolve(JobFolder.AERON).toString();
    }

    /**
     * @return the launcher this process was started by.
     */
    public Source source()
    {
        return source;
    }

    /**
     * @return this process's rank in the job, in [0, size).
     */
    public int rank()
    {
        return rank;
    }

    /**
     * @return the number of ranks in the job.
     */
    public int size()
    {
        return size;
    }

    /**
     * @return this process's rank among the ranks of its node (its rank when the launcher does not say).
     */
    public int localRank()
    {
        return localRank;
    }

    /**
     * @return the job id shared by all ranks of the job.
     */
    public String jobId()
    {
        return jobId;
    }

    /**
     * @return the launcher's rendezvous service, when there is one.
     */
    public Optional<InetSocketAddress> rendezvous()
    {
        return Optional.ofNullable(rendezvous);
    }

    /**
     * @return the job's secret, needed to join the rendezvous service, when the launcher gave one
     * ({@link #SECRET}).
     */
    public Optional<JobSecret> secret()
    {
        return Optional.ofNullable(secret);
    }

    /**
     * @return the directory of the node's Aeron media driver for this job.
     */
    public String aeronDirectory()
    {
        return aeronDirectory;
    }

    /**
     * @return the name of the node this rank runs on.
     */
    public String nodeName()
    {
        return nodeName;
    }

    public String toString()
    {
        return "LaunchEnvironment{source=" + source + ", rank=" + rank + ", size=" + size + ", localRank=" +
            localRank + ", job=" + jobId + ", rendezvous=" + (null == rendezvous ? "none" : formatAddress(rendezvous)) +
            ", secret=" + (null == secret ? "none" : "given") + ", aeronDir=" + aeronDirectory + ", node=" + nodeName + "}";
    }

    static String formatAddress(final InetSocketAddress address)
    {
        return address.getHostString() + ":" + address.getPort();
    }

    static String sanitise(final String name)
    {
        return name.replaceAll("[^A-Za-z0-9._-]", "_");
    }

    static String hostName()
    {
        try
        {
            return Files.readString(Path.of("/proc/sys/kernel/hostname")).trim();
        }
        catch (final IOException | RuntimeException ex)
        {
            final String host = System.getenv("HOSTNAME");
            return null == host || host.isBlank() ? "localhost" : host;
        }
    }
}
