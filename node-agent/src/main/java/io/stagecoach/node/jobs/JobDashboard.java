package io.stagecoach.node.jobs;

import io.stagecoach.node.dashboard.JobTrace;
import io.stagecoach.node.launch.JobObserver;

/**
 * The node's live dashboard as the jobs actor sees it. A job submitted to an agent with a dashboard is shown there
 * whole: every node's part forwards its ranks' records to that agent through the cluster ({@link JobTraceMerge}).
 * A part of a job whose agent shows none is shown on this node's dashboard, its ranks only.
 */
public interface JobDashboard
{
    /** No dashboard on this node. */
    JobDashboard NONE = new JobDashboard()
    {
        public JobTrace show(final String jobId, final String program, final int size)
        {
            return null;
        }

        public JobObserver partObserver()
        {
            return JobObserver.NONE;
        }
    };

    /**
     * @param jobId   a job submitted here.
     * @param program what its ranks run.
     * @param size    its ranks.
     * @return the job's trace, now on the dashboard, or null where this node serves none.
     */
    JobTrace show(String jobId, String program, int size);

    /**
     * @return what watches this node's part of a job whose agent shows none: this node's dashboard, or nothing.
     */
    JobObserver partObserver();
}
