package io.stagecoach.rank.bootstrap;

import java.util.Map;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class LaunchEnvironmentTest
{
    @Test
    void shouldReadTheStagecoachLauncherVariables()
    {
        final JobSecret secret = JobSecret.generate();
        final LaunchEnvironment env = LaunchEnvironment.from(Map.of(
            "STAGECOACH_SECRET", secret.text(),
            "STAGECOACH_RANK", "2",
            "STAGECOACH_SIZE", "4",
            "STAGECOACH_JOB", "j42",
            "STAGECOACH_RENDEZVOUS", "127.0.0.1:40123",
            "STAGECOACH_AERON_DIR", "/dev/shm/stagecoach-test-j42",
            "STAGECOACH_NODE", "node-a",
            "OMPI_COMM_WORLD_RANK", "0",
            "OMPI_COMM_WORLD_SIZE", "1"));

        assertEquals(LaunchEnvironment.Source.STAGECOACH, env.source());
        assertEquals(2, env.rank());
        assertEquals(4, env.size());
        assertEquals(2, env.localRank());
        assertEquals("j42", env.jobId());
        assertEquals("127.0.0.1:40123", LaunchEnvironment.formatAddress(env.rendezvous().orElseThrow()));
        assertEquals("/dev/shm/stagecoach-test-j42", env.aeronDirectory());
        assertEquals("node-a", env.nodeName());
        assertEquals(secret.text(), env.secret().orElseThrow().text());
        assertFalse(env.toString().contains(secret.text()), env.toString());
        assertFalse(env.secret().orElseThrow().toString().contains(secret.text()));
    }

    @Test
    void shouldRefuseASecretThatIsTooShortOrNotHexWithoutRepeatingIt()
    {
        for (final String secret : new String[]{ "0123456789abcdef", "g".repeat(64), "abc".repeat(21) })
        {
            final String message = assertThrows(IllegalStateException.class, () -> LaunchEnvironment.from(Map.of(
                "STAGECOACH_RANK", "0", "STAGECOACH_SIZE", "1", "STAGECOACH_SECRET", secret))).getMessage();
            assertTrue(message.startsWith("STAGECOACH_SECRET is not a job secret: expected an even number of 32 " +
                "to 128 hexadecimal digits, found " + secret.length() + " characters"), message);
            assertFalse(message.contains(secret), message);
        }
        assertFalse(LaunchEnvironment.from(Map.of("STAGECOACH_RANK", "0", "STAGECOACH_SIZE", "1")).secret()
            .isPresent());
    }

    @Test
    void shouldFollowTheConventionForOpenMpiRanksWithoutARendezvousService()
    {
        final Map<String, String> rank0 = Map.of(
            "OMPI_COMM_WORLD_RANK", "0", "OMPI_COMM_WORLD_SIZE", "2", "OMPI_COMM_WORLD_LOCAL_RANK", "0",
            "OMPI_MCA_ess_base_jobid", "3735879681");
        final Map<String, String> rank1 = Map.of(
            "OMPI_COMM_WORLD_RANK", "1", "OMPI_COMM_WORLD_SIZE", "2", "OMPI_COMM_WORLD_LOCAL_RANK", "1",
            "OMPI_MCA_ess_base_jobid", "3735879681");

        final LaunchEnvironment first = LaunchEnvironment.from(rank0);
        final LaunchEnvironment second = LaunchEnvironment.from(rank1);
        assertEquals(LaunchEnvironment.Source.OPEN_MPI, second.source());
        assertEquals(1, second.rank());
        assertEquals(2, second.size());
        assertEquals(1, second.localRank());
        assertFalse(second.rendezvous().isPresent());
        assertEquals("3735879681", second.jobId());
        assertEquals(first.aeronDirectory(), second.aeronDirectory());
        assertTrue(second.aeronDirectory().endsWith("-3735879681/aeron"), second.aeronDirectory());
    }

    @Test
    void shouldReadPmiAndSlurmVariables()
    {
        final LaunchEnvironment pmi = LaunchEnvironment.from(Map.of(
            "PMI_RANK", "3", "PMI_SIZE", "8", "MPI_LOCALRANKID", "1", "STAGECOACH_AERON_DIR", "/tmp/a"));
        assertEquals(LaunchEnvironment.Source.PMI, pmi.source());
        assertEquals(3, pmi.rank());
        assertEquals(8, pmi.size());
        assertEquals(1, pmi.localRank());
        assertEquals("/tmp/a", pmi.aeronDirectory());

        final LaunchEnvironment slurm = LaunchEnvironment.from(Map.of(
            "SLURM_PROCID", "5", "SLURM_NTASKS", "6", "SLURM_LOCALID", "0", "SLURM_JOB_ID", "77",
            "SLURM_STEP_ID", "2"));
        assertEquals(LaunchEnvironment.Source.SLURM, slurm.source());
        assertEquals(5, slurm.rank());
        assertEquals(6, slurm.size());
        assertEquals(0, slurm.localRank());
        assertEquals("slurm-77.2", slurm.jobId());
    }

    @Test
    void shouldBeASingletonWithoutLauncherVariables()
    {
        final LaunchEnvironment env = LaunchEnvironment.from(Map.of("PATH", "/usr/bin"));
        assertEquals(LaunchEnvironment.Source.SINGLETON, env.source());
        assertEquals(0, env.rank());
        assertEquals(1, env.size());
        assertEquals("singleton-" + ProcessHandle.current().pid(), env.jobId());
        assertFalse(env.rendezvous().isPresent());
    }

    @Test
    void shouldNameTheVariableAndValueThatCannotBeUsed()
    {
        assertEquals("STAGECOACH_RANK=4 is not below STAGECOACH_SIZE=4", assertThrows(IllegalStateException.class,
            () -> LaunchEnvironment.from(Map.of("STAGECOACH_RANK", "4", "STAGECOACH_SIZE", "4"))).getMessage());
        assertEquals("STAGECOACH_SIZE=four is not an integer", assertThrows(IllegalStateException.class,
            () -> LaunchEnvironment.from(Map.of("STAGECOACH_RANK", "0", "STAGECOACH_SIZE", "four"))).getMessage());
        assertEquals("STAGECOACH_SIZE is not set", assertThrows(IllegalStateException.class,
            () -> LaunchEnvironment.from(Map.of("STAGECOACH_RANK", "0"))).getMessage());
        final String remote = assertThrows(IllegalStateException.class, () -> LaunchEnvironment.from(Map.of(
            "STAGECOACH_RANK", "0", "STAGECOACH_SIZE", "1", "STAGECOACH_RENDEZVOUS", "10.1.2.3:5000"))).getMessage();
        assertTrue(remote.startsWith("STAGECOACH_RENDEZVOUS=10.1.2.3:5000: the rendezvous service runs on the loopback"),
            remote);
        assertThrows(IllegalStateException.class, () -> LaunchEnvironment.from(Map.of(
            "STAGECOACH_RANK", "0", "STAGECOACH_SIZE", "1", "STAGECOACH_RENDEZVOUS", "127.0.0.1:99999")));
        assertEquals("10.1.2.3", LaunchEnvironment.from(Map.of("STAGECOACH_RANK", "0", "STAGECOACH_SIZE", "1",
            "STAGECOACH_RENDEZVOUS", "10.1.2.3:5000", "STAGECOACH_RENDEZVOUS_SCOPE", "cluster")).rendezvous().get()
            .getAddress().getHostAddress());
        final String named = assertThrows(IllegalStateException.class, () -> LaunchEnvironment.from(Map.of(
            "STAGECOACH_RANK", "0", "STAGECOACH_SIZE", "1", "STAGECOACH_RENDEZVOUS", "node-a:5000",
            "STAGECOACH_RENDEZVOUS_SCOPE", "cluster"))).getMessage();
        assertTrue(named.contains("a literal IPv4 address, not 'node-a'"), named);
    }

    @Test
    void shouldPlaceTheDefaultAeronDirectoryInAFolderPerUserAndJob()
    {
        final String dir = LaunchEnvironment.defaultAeronDirectory("a/b c");
        assertTrue(dir.endsWith("/stagecoach-" + System.getProperty("user.name").replaceAll("[^A-Za-z0-9._-]", "_") +
            "-a_b_c/aeron"), dir);
    }
}
