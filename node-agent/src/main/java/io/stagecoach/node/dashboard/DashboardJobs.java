package io.stagecoach.node.dashboard;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The jobs a dashboard shows, newest last: the launcher's one job, or a node agent's jobs. Holds the
 * {@link #MAX_JOBS} newest; an older one is forgotten when another is added.
 */
public final class DashboardJobs
{
    /** Jobs kept at once. */
    public static final int MAX_JOBS = 16;

    private final Map<String, JobTrace> jobs = new LinkedHashMap<>();

    /**
     * @param trace a job's trace, shown from now on.
     */
    public synchronized void add(final JobTrace trace)
    {
        jobs.put(trace.jobId(), trace);
        while (jobs.size() > MAX_JOBS)
        {
            jobs.remove(jobs.keySet().iterator().next());
        }
    }

    /**
     * @param jobId a job's id.
     * @return its trace, or null.
     */
    public synchronized JobTrace get(final String jobId)
    {
        return jobs.get(jobId);
    }

    /**
     * @return the jobs, oldest first.
     */
    public synchronized List<JobTrace> list()
    {
        return new ArrayList<>(jobs.values());
    }
}
