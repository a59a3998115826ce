package io.stagecoach.node.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;

import io.stagecoach.node.agent.ControlClient;
import io.stagecoach.node.jobs.JobRequest;

/**
 * A job submitted to the local agent: its output printed as it comes, its exit status returned.
 */
final class AgentJob
{
    private final PrintWriter out;
    private final PrintWriter err;
    private int status = -1;
    private String jobId;

    private AgentJob(final PrintWriter out, final PrintWriter err)
    {
        this.out = out;
        this.err = err;
    }

    /**
     * @param socket  the local agent's control socket.
     * @param request the job.
     * @param out     for the ranks' standard output.
     * @param err     for their standard error and the job's reports.
     * @return the job's exit status; 1 where the agent refused it or went away before it ended.
     */
    static int run(final Path socket, final JobRequest request, final PrintWriter out, final PrintWriter err)
    {
        final AgentJob job = new AgentJob(out, err);
        try
        {
            ControlClient.stream(socket, "submit " + request.toText(), job::onLine);
        }
        catch (final IOException ex)
        {
            err.println("stagecoach: no agent answers at " + socket + " (" + ex.getMessage() + "); start one with " +
                "stagecoach agent --config FILE, or run without -H/--hostfile on this node alone");
            err.flush();
            return 1;
        }
        if (job.status < 0)
        {
            err.println("stagecoach: the agent at " + socket + " went away before job " +
                (null == job.jobId ? "" : job.jobId + " ") + "ended");
            err.flush();
            return 1;
        }
        return job.status;
    }

    private void onLine(final String line)
    {
        if (line.startsWith("o "))
        {
            out.println(line.substring(2));
            out.flush();
        }
        else if (line.startsWith("e "))
        {
            err.println(line.substring(2));
            err.flush();
        }
        else if (line.startsWith("j "))
        {
            jobId = line.substring(2);
        }
        else if (line.startsWith("x "))
        {
            status = Integer.parseInt(line.substring(2).strip());
        }
        else if (line.startsWith("error: "))
        {
            err.println("stagecoach: " + line.substring("error: ".length()));
            err.flush();
            status = 1;
        }
    }
}
