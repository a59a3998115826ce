package io.stagecoach.node.launch;

import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class LaunchContextTest
{
    @Test
    void shouldGiveRanksThePerformanceOptionsBeforeTheUsersWhichOverrideThem()
    {
        final LaunchContext context = new LaunchContext().size(2).program(SleepingRank.class.getName())
            .jvmOptions(List.of("-Dagrona.disable.bounds.checks=false"));
        context.conclude();
        final List<String> command = context.command();
        final int performance = command.indexOf("-Dagrona.disable.bounds.checks=true");
        final int user = command.indexOf("-Dagrona.disable.bounds.checks=false");
        assertTrue(performance > 0 && user > performance, command.toString());
        assertTrue(command.indexOf("-cp") > user, command.toString());
    }

    @Test
    void shouldRefuseMoreRanksThanSlotsUnlessOversubscribed()
    {
        final int slots = Runtime.getRuntime().availableProcessors();
        assertEquals(slots, LaunchContext.slots());

        final LaunchException ex = assertThrows(LaunchException.class,
            () -> new LaunchContext().size(slots + 1).program(SleepingRank.class.getName()).conclude());

        assertEquals("-n " + (slots + 1) + " asks for more ranks than the " + slots + " slots here (the cores this " +
            "process may run on); add --oversubscribe to run more ranks than cores", ex.getMessage());
        new LaunchContext().size(slots).program(SleepingRank.class.getName()).conclude();
        new LaunchContext().size(slots + 1).program(SleepingRank.class.getName()).oversubscribe(true).conclude();
    }

    @Test
    void shouldTakeTheTraceFileAbsoluteAndRefuseADirectoryOrAMissingFolder(@TempDir final Path folder)
    {
        final LaunchContext context = new LaunchContext().size(1).program(SleepingRank.class.getName())
            .traceFile(folder.resolve("a/../trace.json"));
        assertEquals(folder.resolve("trace.json"), context.conclude().traceFile());

        assertEquals("--trace " + folder + " is a directory, not a file to write", assertThrows(LaunchException.class,
            () -> new LaunchContext().size(1).program(SleepingRank.class.getName()).traceFile(folder).conclude())
            .getMessage());
        assertThrows(LaunchException.class, () -> new LaunchContext().size(1).program(SleepingRank.class.getName())
            .traceFile(folder.resolve("missing/trace.json")).conclude());
    }
}
