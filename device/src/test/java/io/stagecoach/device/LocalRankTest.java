package io.stagecoach.device;

import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class LocalRankTest
{
    @ParameterizedTest
    @CsvSource({
        "STAGECOACH_RANK, STAGECOACH_LOCAL_RANK",
        "OMPI_COMM_WORLD_RANK, OMPI_COMM_WORLD_LOCAL_RANK",
        "PMI_RANK, MPI_LOCALRANKID",
        "SLURM_PROCID, SLURM_LOCALID"})
    void shouldReadTheLocalRankEachLauncherGives(final String rankVariable, final String localRankVariable)
    {
        assertEquals(new LocalRank(3, localRankVariable),
            LocalRank.fromEnvironment(Map.of(rankVariable, "11", localRankVariable, "3")));
    }

    @Test
    void shouldTakeTheRankWhereTheLauncherGivesNoLocalRank()
    {
        assertEquals(new LocalRank(5, "OMPI_COMM_WORLD_RANK"),
            LocalRank.fromEnvironment(Map.of("OMPI_COMM_WORLD_RANK", "5", "OMPI_COMM_WORLD_LOCAL_RANK", " ")));
    }

    @Test
    void shouldFollowTheLaunchersInTheOrderTheRankRuntimeDoes()
    {
        final Map<String, String> insideSlurm = Map.of(
            "SLURM_PROCID", "9", "SLURM_LOCALID", "1", "STAGECOACH_RANK", "2", "STAGECOACH_LOCAL_RANK", "2");
        assertEquals(new LocalRank(2, "STAGECOACH_LOCAL_RANK"), LocalRank.fromEnvironment(insideSlurm));
        final Map<String, String> mpirunInsideSlurm = Map.of(
            "SLURM_PROCID", "0", "SLURM_LOCALID", "0", "OMPI_COMM_WORLD_RANK", "6", "OMPI_COMM_WORLD_LOCAL_RANK", "2");
        assertEquals(new LocalRank(2, "OMPI_COMM_WORLD_LOCAL_RANK"), LocalRank.fromEnvironment(mpirunInsideSlurm));
    }

    @Test
    void shouldBeLocalRankZeroWithoutALaunchersRank()
    {
        assertEquals(new LocalRank(0, "no launcher variable"), LocalRank.fromEnvironment(Map.of()));
        assertEquals(new LocalRank(0, "no launcher variable"),
            LocalRank.fromEnvironment(Map.of("SLURM_LOCALID", "3", "STAGECOACH_LOCAL_RANK", "3")));
    }

    @ParameterizedTest
    @ValueSource(strings = {"two", "-1", "2147483648"})
    void shouldRefuseALocalRankThatIsNoNonNegativeInteger(final String value)
    {
        final IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
            () -> LocalRank.fromEnvironment(Map.of("PMI_RANK", "0", "MPI_LOCALRANKID", value)));
        assertEquals("MPI_LOCALRANKID=" + value + " is not a local rank (an integer from 0)", refused.getMessage());
    }
}
