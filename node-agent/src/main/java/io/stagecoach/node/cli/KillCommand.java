package io.stagecoach.node.cli;

import java.util.concurrent.Callable;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code stagecoach kill JOB}: ends a job submitted to the local agent.
 */
@Command(
    name = "kill",
    mixinStandardHelpOptions = true,
    description = {
        "End a job submitted on this node (its id from stagecoach ps): every rank on every node is ended and its " +
            "submitter exits with a non-zero status naming the kill.",
        "" },
    sortOptions = false)
final class KillCommand implements Callable<Integer>
{
    @Spec
    private CommandSpec spec;

    @Mixin
    private AgentLocation agent;

    @Parameters(index = "0", paramLabel = "JOB", description = "The job's id.")
    private String jobId;

    public Integer call()
    {
        if (!jobId.matches("[A-Za-z0-9._-]{1,128}"))
        {
            spec.commandLine().getErr().println("stagecoach: '" + jobId + "' is not a job id");
            return 2;
        }
        return JobsCommand.ask(spec, agent, "kill " + jobId);
    }
}
