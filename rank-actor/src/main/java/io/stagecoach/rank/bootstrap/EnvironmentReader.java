package io.stagecoach.rank.bootstrap;

import java.net.InetSocketAddress;
import java.util.Map;

import static io.stagecoach.rank.bootstrap.LaunchEnvironment.AERON_DIR;
import static io.stagecoach.rank.bootstrap.LaunchEnvironment.JOB;
import static io.stagecoach.rank.bootstrap.LaunchEnvironment.LOCAL_RANK;
import static io.stagecoach.rank.bootstrap.LaunchEnvironment.NODE;
import static io.stagecoach.rank.bootstrap.LaunchEnvironment.RANK;
import static io.stagecoach.rank.bootstrap.LaunchEnvironment.RENDEZVOUS;
import static io.stagecoach.rank.bootstrap.LaunchEnvironment.SECRET;
import static io.stagecoach.rank.bootstrap.LaunchEnvironment.SIZE;

final class EnvironmentReader
{
    private final Map<String, String> env;

    EnvironmentReader(final Map<String, String> env)
    {
        this.env = env;
    }

    LaunchEnvironment read()
    {
        if (has(RANK))
        {
            return build(LaunchEnvironment.Source.STAGECOACH, RANK, SIZE, LOCAL_RANK, parentJob("stagecoach"));
        }
        if (has("OMPI_COMM_WORLD_RANK"))
        {
            return build(
                LaunchEnvironment.Source.OPEN_MPI,
                "OMPI_COMM_WORLD_RANK",
                "OMPI_COMM_WORLD_SIZE",
                "OMPI_COMM_WORLD_LOCAL_RANK",
                firstOf("OMPI_MCA_ess_base_jobid", "PMIX_NAMESPACE", parentJob("ompi")));
        }
        if (has("PMI_RANK"))
        {
            return build(
                LaunchEnvironment.Source.PMI,
                "PMI_RANK",
                "PMI_SIZE",
                "MPI_LOCALRANKID",
                firstOf("PMI_KVSNAME", "PMIX_NAMESPACE", parentJob("pmi")));
        }
        if (has("SLURM_PROCID"))
        {
            final String job = has("SLURM_JOB_ID") ?
                "slurm-" + env.get("SLURM_JOB_ID") + "." + env.getOrDefault("SLURM_STEP_ID", "0") : parentJob("slurm");
            return build(LaunchEnvironment.Source.SLURM, "SLURM_PROCID", sizeVariableOfSlurm(), "SLURM_LOCALID", job);
        }
        return singleton();
    }

    private LaunchEnvironment build(
        final LaunchEnvironment.Source source,
        final String rankVariable,
        final String sizeVariable,
        final String localRankVariable,
        final String derivedJob)
    {
        final int size = intOf(sizeVariable, 1);
        final int rank = intOf(rankVariable, 0);
        if (rank >= size)
        {
            throw new IllegalStateException(
                rankVariable + "=" + rank + " is not below " + sizeVariable + "=" + size);
        }
        final int localRank = has(localRankVariable) ? intOf(localRankVariable, 0) : rank;
        final String job = has(JOB) ? env.get(JOB) : derivedJob;
        return new LaunchEnvironment(
            source,
            rank,
            size,
            localRank,
            job,
            has(RENDEZVOUS) ? rendezvousAddress() : null,
            secret(),
            has(AERON_DIR) ? env.get(AERON_DIR) : LaunchEnvironment.defaultAeronDirectory(job),
            has(NODE) ? env.get(NODE) : LaunchEnvironment.hostName());
    }

    private LaunchEnvironment singleton()
    {
        final String job = has(JOB) ? env.get(JOB) : "singleton-" + ProcessHandle.current().pid();
        return new LaunchEnvironment(
            LaunchEnvironment.Source.SINGLETON,
            0,
            1,
            0,
            job,
            has(RENDEZVOUS) ? rendezvousAddress() : null,
            secret(),
            has(AERON_DIR) ? env.get(AERON_DIR) : LaunchEnvironment.defaultAeronDirectory(job),
            has(NODE) ? env.get(NODE) : LaunchEnvironment.hostName());
    }

    private JobSecret secret()
    {
        if (!has(SECRET))
        {
            return null;
        }
        try
        {
            return JobSecret.fromText(env.get(SECRET));
        }
        catch (final IllegalArgumentException ex)
        {
            throw new IllegalStateException(SECRET + " " + ex.getMessage(), ex);
        }
    }

    private String sizeVariableOfSlurm()
    {
        return has("SLURM_NTASKS") || !has("SLURM_NPROCS") ? "SLURM_NTASKS" : "SLURM_NPROCS";
    }

    private int intOf(final String variable, final int minimum)
    {
        final String value = env.get(variable);
        if (null == value || value.isBlank())
        {
            throw new IllegalStateException(variable + " is not set");
        }
        try
        {
            final int parsed = Integer.parseInt(value.trim());
            if (parsed < minimum)
            {
                throw new IllegalStateException(variable + "=" + value + " is below " + minimum);
            }
            return parsed;
        }
        catch (final NumberFormatException ex)
        {
            throw new IllegalStateException(variable + "=" + value + " is not an integer", ex);
        }
    }

    private String firstOf(final String variable, final String otherVariable, final String fallback)
    {
        if (has(variable))
        {
            return env.get(variable);
        }
        return has(otherVariable) ? env.get(otherVariable) : fallback;
    }

    private static String parentJob(final String prefix)
    {
        final long parent = ProcessHandle.current().parent().map(ProcessHandle::pid).orElse(0L);
        return prefix + "-" + parent;
    }

    private boolean has(final String variable)
    {
        final String value = env.get(variable);
        return null != value && !value.isBlank();
    }

    private InetSocketAddress rendezvousAddress()
    {
        final String scope = env.get(LaunchEnvironment.RENDEZVOUS_SCOPE);
        if (null != scope && !scope.isBlank() && !"cluster".equals(scope.strip()))
        {
            throw new IllegalStateException(LaunchEnvironment.RENDEZVOUS_SCOPE + "=" + scope + " is not 'cluster'");
        }
        return address(RENDEZVOUS, env.get(RENDEZVOUS), null != scope && !scope.isBlank());
    }

    static InetSocketAddress loopbackAddress(final String variable, final String value)
    {
        return address(variable, value, false);
    }

    private static InetSocketAddress address(final String variable, final String value, final boolean cluster)
    {
        final int colon = value.lastIndexOf(':');
        if (colon <= 0 || colon == value.length() - 1)
        {
            throw new IllegalStateException(variable + "=" + value + " is not host:port");
        }
        final String host = value.substring(0, colon).trim();
        final int port;
        try
        {
            port = Integer.parseInt(value.substring(colon + 1).trim());
        }
        catch (final NumberFormatException ex)
        {
            throw new IllegalStateException(variable + "=" + value + " has no numeric port", ex);
        }
        if (port < 1 || port > 65535)
        {
            throw new IllegalStateException(variable + "=" + value + ": port " + port + " is not in [1, 65535]");
        }
        return cluster ? RendezvousProtocol.literal(host, port, variable + "=" + value) :
            RendezvousProtocol.loopback(host, port, variable + "=" + value);
    }
}
