package io.stagecoach.node.launch;

import java.util.List;

import org.junit.jupiter.api.Test;

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
}
